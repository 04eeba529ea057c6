package sdktest

import (
	"errors"
	"net/http/httptest"
	"testing"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cloudflare/cloudflare-go/v6"
	"github.com/cloudflare/cloudflare-go/v6/option"
	"github.com/stretchr/testify/require"
)

const (
	accountID = "0123456789abcdef0123456789abcdef"
	otherAcct = "fedcba9876543210fedcba9876543210"
	zoneID    = "11111111111111111111111111111111"
	otherZone = "22222222222222222222222222222222"
	token     = "sdk-token"
	groupID   = "aaaaaaaa-aaaa-4aaa-8aaa-aaaaaaaaaaaa"
)

func seed() cfsim.Seed {
	return cfsim.Seed{
		Accounts: []cfsim.SeedAccount{
			{ID: accountID, Name: "Acme", Tokens: []string{token}},
			{ID: otherAcct, Name: "Other", Tokens: []string{"other-token"}},
		},
		Zones: []cfsim.SeedZone{
			{ID: zoneID, Name: "example.com", Account: accountID},
			{ID: otherZone, Name: "other.org", Account: otherAcct},
		},
		AccessGroups: []cfsim.SeedAccessGroup{
			{ID: groupID, Name: "Engineering", Account: accountID,
				Include: []map[string]any{{"email_domain": map[string]any{"domain": "example.com"}}}},
		},
	}
}

// newClient starts the simulator on loopback and returns an SDK client
// pointed at it, with retries off so every simulator answer is visible.
func newClient(t *testing.T, opts ...cfsim.Option) (*cloudflare.Client, *cfsim.Server) {
	t.Helper()
	sim, err := cfsim.New(append([]cfsim.Option{cfsim.WithSeed(seed())}, opts...)...)
	require.NoError(t, err)
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	client := cloudflare.NewClient(
		option.WithBaseURL(ts.URL+cfsim.APIPrefix+"/"),
		option.WithAPIToken(token),
		option.WithHTTPClient(ts.Client()),
		option.WithMaxRetries(0),
	)
	return client, sim
}

// requireAPIError asserts err is a Cloudflare API error with the HTTP
// status and first error code given.
func requireAPIError(t *testing.T, err error, status, code int) {
	t.Helper()
	require.Error(t, err)
	var apiErr *cloudflare.Error
	require.True(t, errors.As(err, &apiErr), "not an API error: %v", err)
	require.Equal(t, status, apiErr.StatusCode, "%v", err)
	require.NotEmpty(t, apiErr.Errors, "%v", err)
	require.EqualValues(t, code, apiErr.Errors[0].Code, "%v", err)
}

// faultStatus answers count requests with status and a one-second
// Retry-After, which keeps the SDK's retry loop quick.
func faultStatus(status, count int) cfsim.Fault {
	return cfsim.Fault{Status: status, Count: count, RetryAfter: 1}
}
