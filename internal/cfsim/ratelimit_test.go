package cfsim

import (
	"net/http"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

func TestRateLimitPerToken(t *testing.T) {
	h := newHarness(t, WithRateLimit(3, time.Minute))
	for range 3 {
		h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	}
	r := h.api(http.MethodGet, "/zones", nil)
	e := r.fails(http.StatusTooManyRequests, 971)
	require.Equal(t, "Please wait and consider throttling your request speed", e.Message)
	require.Equal(t, "60", r.Header.Get("Retry-After"))

	// Another token has its own budget.
	h.do(http.MethodGet, "/zones", tok2, nil).ok(http.StatusOK, nil)

	// Refused requests do not extend the window.
	h.clock.Advance(45 * time.Second)
	r = h.api(http.MethodGet, "/zones", nil)
	r.fails(http.StatusTooManyRequests, 971)
	require.Equal(t, "15", r.Header.Get("Retry-After"))

	h.clock.Advance(15 * time.Second)
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)

	// Writes count too, and 429s are logged.
	statuses := []int{}
	for _, rec := range h.srv.Requests() {
		statuses = append(statuses, rec.Status)
	}
	require.Equal(t, []int{200, 200, 200, 429, 200, 429, 200}, statuses)
}

func TestRateLimitSlidingWindow(t *testing.T) {
	h := newHarness(t, WithRateLimit(2, 10*time.Second))
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	h.clock.Advance(6 * time.Second)
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	h.clock.Advance(3 * time.Second)
	r := h.api(http.MethodGet, "/zones", nil)
	r.fails(http.StatusTooManyRequests, 971)
	require.Equal(t, "1", r.Header.Get("Retry-After"))
	h.clock.Advance(2 * time.Second) // the first request has left the window
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, "/zones", nil).fails(http.StatusTooManyRequests, 971)
}

func TestRateLimitDisabledAndReset(t *testing.T) {
	h := newHarness(t, WithRateLimit(0, time.Minute))
	for range 50 {
		h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	}

	h = newHarness(t, WithRateLimit(1, time.Hour))
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
	h.api(http.MethodGet, "/zones", nil).fails(http.StatusTooManyRequests, 971)
	h.srv.Reset()
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
}

func TestRateLimitIgnoresBadTokensAndAdmin(t *testing.T) {
	h := newHarness(t, WithRateLimit(1, time.Hour))
	for range 3 {
		h.do(http.MethodGet, "/zones", "wrong", nil).fails(http.StatusForbidden, 10000)
		h.do(http.MethodGet, "/__admin/health", "", nil)
	}
	h.api(http.MethodGet, "/zones", nil).ok(http.StatusOK, nil)
}

func TestDefaultRateLimitIs1200Per5Minutes(t *testing.T) {
	h := newHarness(t)
	for range 1200 {
		h.api(http.MethodGet, "/user/tokens/verify", nil).ok(http.StatusOK, nil)
	}
	r := h.api(http.MethodGet, "/user/tokens/verify", nil)
	r.fails(http.StatusTooManyRequests, 971)
	require.Equal(t, "300", r.Header.Get("Retry-After"))
}

func TestParseRateLimit(t *testing.T) {
	cases := []struct {
		in     string
		n      int
		window time.Duration
		err    bool
	}{
		{"1200/5m", 1200, 5 * time.Minute, false},
		{"10/1s", 10, time.Second, false},
		{"50", 50, 5 * time.Minute, false},
		{"0", 0, 5 * time.Minute, false},
		{" 7 / 30s ", 7, 30 * time.Second, false},
		{"", 0, 0, true},
		{"-1/5m", 0, 0, true},
		{"ten/5m", 0, 0, true},
		{"10/forever", 0, 0, true},
		{"10/0s", 0, 0, true},
	}
	for _, tc := range cases {
		n, w, err := ParseRateLimit(tc.in)
		if tc.err {
			require.Error(t, err, tc.in)
			continue
		}
		require.NoError(t, err, tc.in)
		require.Equal(t, tc.n, n, tc.in)
		require.Equal(t, tc.window, w, tc.in)
	}
}
