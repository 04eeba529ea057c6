package cfsim

import "time"

// DefaultRateLimit is Cloudflare's documented global API limit: 1200 requests
// per five minutes for each user (here: each API token).
const (
	DefaultRateLimit       = 1200
	DefaultRateLimitWindow = 5 * time.Minute
)

// Option configures a Server built by New.
type Option func(*config)

type config struct {
	seed       Seed
	now        func() time.Time
	ids        IDGenerator
	rateLimit  int
	rateWindow time.Duration
	latency    time.Duration
}

func defaultConfig() config {
	return config{
		now:        time.Now,
		ids:        RandomIDs(),
		rateLimit:  DefaultRateLimit,
		rateWindow: DefaultRateLimitWindow,
	}
}

// WithSeed loads accounts, tokens, zones and other fixtures at start-up and on
// every Reset.
func WithSeed(seed Seed) Option {
	return func(c *config) { c.seed = seed }
}

// WithClock replaces time.Now, so timestamps and rate-limit windows are
// deterministic in tests.
func WithClock(now func() time.Time) Option {
	return func(c *config) {
		if now != nil {
			c.now = now
		}
	}
}

// WithIDGenerator replaces the random ID and secret source, e.g. with
// SequentialIDs for reproducible tests.
func WithIDGenerator(g IDGenerator) Option {
	return func(c *config) {
		if g != nil {
			c.ids = g
		}
	}
}

// WithRateLimit sets how many API requests each token may make per window.
// A limit of 0 disables rate limiting.
func WithRateLimit(requests int, window time.Duration) Option {
	return func(c *config) {
		c.rateLimit = requests
		if window > 0 {
			c.rateWindow = window
		}
	}
}

// WithLatency delays every API request by d, to exercise client timeouts and
// concurrency without fault injection.
func WithLatency(d time.Duration) Option {
	return func(c *config) { c.latency = d }
}
