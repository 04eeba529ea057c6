package cfsim

import (
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"
)

// rateLimiter enforces a sliding window of at most limit requests per window
// for each API token, like Cloudflare's global per-user API limit.
type rateLimiter struct {
	mu     sync.Mutex
	limit  int
	window time.Duration
	hits   map[string][]time.Time // token -> request times inside the window, oldest first
}

func newRateLimiter(limit int, window time.Duration) *rateLimiter {
	return &rateLimiter{limit: limit, window: window, hits: map[string][]time.Time{}}
}

// allow records a request by token at now. When the token is over its limit
// the request is refused (and not counted) and retryAfter says in how many
// whole seconds the oldest counted request leaves the window.
func (l *rateLimiter) allow(token string, now time.Time) (retryAfter int, ok bool) {
	if l.limit <= 0 {
		return 0, true
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	hits := l.hits[token]
	cutoff := now.Add(-l.window)
	i := 0
	for i < len(hits) && !hits[i].After(cutoff) {
		i++
	}
	hits = hits[i:]
	if len(hits) >= l.limit {
		l.hits[token] = hits
		wait := hits[0].Add(l.window).Sub(now)
		secs := int((wait + time.Second - 1) / time.Second)
		return max(secs, 1), false
	}
	l.hits[token] = append(hits, now)
	return 0, true
}

func (l *rateLimiter) reset() {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.hits = map[string][]time.Time{}
}

// ParseRateLimit parses the --rate-limit flag: "N/5m" (N requests per
// duration), "N" (per five minutes), or "0" to disable limiting.
func ParseRateLimit(s string) (requests int, window time.Duration, err error) {
	s = strings.TrimSpace(s)
	countPart, windowPart, hasWindow := strings.Cut(s, "/")
	requests, err = strconv.Atoi(strings.TrimSpace(countPart))
	if err != nil || requests < 0 {
		return 0, 0, fmt.Errorf("cfsim: rate limit %q: want N/duration, e.g. 1200/5m", s)
	}
	window = DefaultRateLimitWindow
	if hasWindow {
		window, err = time.ParseDuration(strings.TrimSpace(windowPart))
		if err != nil || window <= 0 {
			return 0, 0, fmt.Errorf("cfsim: rate limit %q: bad window: want a duration such as 5m", s)
		}
	}
	return requests, window, nil
}
