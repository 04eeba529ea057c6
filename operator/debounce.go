package operator

import (
	"context"
	"time"
)

// debouncer turns bursts of change notifications into single cycle
// requests: it fires once no notification has come for quiet, or max after
// the first notification of the burst, whichever is sooner. Fired requests
// wait in a one-slot channel, so notifications during a running cycle cost
// exactly one follow-up cycle.
type debouncer struct {
	quiet, max time.Duration
	in         chan struct{}
	out        chan struct{}
}

func newDebouncer(quiet, max time.Duration) *debouncer {
	if max < quiet {
		max = quiet
	}
	return &debouncer{quiet: quiet, max: max, in: make(chan struct{}, 1), out: make(chan struct{}, 1)}
}

// notify records a change; it never blocks.
func (d *debouncer) notify() {
	select {
	case d.in <- struct{}{}:
	default:
	}
}

// run forwards debounced requests to out until ctx ends.
func (d *debouncer) run(ctx context.Context) {
	for {
		select {
		case <-ctx.Done():
			return
		case <-d.in:
		}
		deadline := time.Now().Add(d.max)
		timer := time.NewTimer(d.quiet)
	burst:
		for {
			select {
			case <-ctx.Done():
				timer.Stop()
				return
			case <-d.in:
				wait := min(d.quiet, time.Until(deadline))
				timer.Reset(max(wait, 0))
			case <-timer.C:
				break burst
			}
		}
		select {
		case d.out <- struct{}{}:
		default:
		}
	}
}
