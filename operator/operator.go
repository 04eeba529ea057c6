// Package operator is cfzt-runner's operator runtime: it re-runs a
// playbook forever (on an interval, and on Kubernetes changes in watch
// mode), backs off after failures, stops between tasks on a signal, takes
// a coordination.k8s.io Lease when several replicas run, and serves
// health and Prometheus metrics.
package operator

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

// Config is the runtime's configuration. Durations of zero take the
// defaults documented on each field.
type Config struct {
	// Interval between cycles; with Watch it is the resync period. Zero
	// with Watch means cycles run on changes only.
	Interval time.Duration
	// Watch starts informers and runs a cycle on changes.
	Watch bool
	// WatchKinds replaces the kinds found by ScanKinds when not empty.
	WatchKinds []schema.GroupVersionKind
	// Namespaces limits the informers of namespaced kinds (empty: all).
	Namespaces []string
	// StatusKinds are the kinds whose status-only updates start a cycle.
	StatusKinds []string
	// WatchByName are the kinds watched one object at a time when the
	// playbook reads them by name (see watcher).
	WatchByName []schema.GroupKind
	// Debounce is the quiet window after a change (default 300ms);
	// DebounceMax bounds the wait from a burst's first change (default 1s).
	Debounce, DebounceMax time.Duration

	// BackoffBase and BackoffMax shape the wait after consecutive failed
	// cycles (defaults 1s and 5m); see nextWait.
	BackoffBase, BackoffMax time.Duration
	// Grace bounds how long a stop waits for the running task (default 30s).
	Grace time.Duration

	// LeaderElect runs cycles only while this replica holds the Lease
	// LeaseNamespace/LeaseName, as Identity.
	LeaderElect                               bool
	LeaseName, LeaseNamespace, Identity       string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration

	// MetricsAddr serves /healthz, /readyz and /metrics when not empty.
	MetricsAddr string
}

// CycleResult is what one cycle reports back.
type CycleResult struct {
	// Code is the playbook's exit status (0 success).
	Code int
	// Err is a failure to load the playbook.
	Err error
	// Targets are what the playbook reads (ScanKinds, ReadRecorder):
	// watch mode watches them, unless Config.WatchKinds is set.
	Targets []Target
}

// OK reports a successful cycle.
func (r CycleResult) OK() bool { return r.Code == 0 && r.Err == nil }

// Logger writes one runtime event with key/value pairs.
type Logger func(event string, kv ...any)

// Operator runs cycles until stopped.
type Operator struct {
	Config
	// Cycle loads the playbook anew and runs it once. When stop is closed
	// it must end after the running task; cancelling ctx interrupts it.
	Cycle func(ctx context.Context, stop <-chan struct{}) CycleResult
	// RESTConfig connects the informers and the Lease (watch mode and
	// leader election only).
	RESTConfig func() (*rest.Config, error)
	// Abort, when closed, interrupts the running task at once (a second
	// signal).
	Abort   <-chan struct{}
	Log     Logger
	Metrics *Metrics

	cycles   atomic.Int64
	firstOK  atomic.Bool // a cycle has completed
	electing atomic.Bool
	leading  atomic.Bool
}

func (o *Operator) defaults() {
	def := func(d *time.Duration, v time.Duration) {
		if *d <= 0 {
			*d = v
		}
	}
	def(&o.Debounce, 300*time.Millisecond)
	def(&o.DebounceMax, time.Second)
	def(&o.BackoffBase, time.Second)
	def(&o.BackoffMax, 5*time.Minute)
	def(&o.Grace, 30*time.Second)
	def(&o.LeaseDuration, 15*time.Second)
	def(&o.RenewDeadline, 10*time.Second)
	def(&o.RetryPeriod, 2*time.Second)
	if o.Metrics == nil {
		o.Metrics = NewMetrics()
	}
	if o.Log == nil {
		o.Log = func(string, ...any) {}
	}
}

// Ready reports readiness: a cycle has completed, or this replica is a
// follower with its elector running.
func (o *Operator) Ready() bool {
	return o.firstOK.Load() || (o.electing.Load() && !o.leading.Load())
}

// Run runs until ctx ends, which asks for a stop: the running task
// finishes, then Run returns 0. If the task is still running after Grace
// (or Abort is closed) it is interrupted and Run returns 1. Run also
// returns 1 when the runtime cannot start (no Kubernetes connection).
func (o *Operator) Run(ctx context.Context) int {
	o.defaults()
	hard, cancelHard := context.WithCancel(context.WithoutCancel(ctx))
	defer cancelHard()
	var forced atomic.Bool
	go o.enforceGrace(ctx, hard, cancelHard, &forced)
	if o.MetricsAddr != "" {
		bound := make(chan string, 1)
		go func() {
			if err := serve(hard, o.MetricsAddr, o.Metrics, o.Ready, bound); err != nil {
				o.Log("metrics_error", "error", err.Error())
			}
		}()
		go func() {
			select {
			case addr := <-bound:
				o.Log("metrics_listening", "addr", addr)
			case <-hard.Done():
			}
		}()
	}
	var err error
	if o.LeaderElect {
		err = o.runElected(ctx, hard)
	} else {
		o.Metrics.SetLeader(true)
		err = o.loop(hard, ctx.Done())
	}
	switch {
	case forced.Load():
		o.Log("stopped", "clean", false, "reason", "the running task was interrupted")
		return 1
	case err != nil:
		o.Log("stopped", "clean", false, "error", err.Error())
		return 1
	}
	o.Log("stopped", "clean", true)
	return 0
}

// enforceGrace cancels hard when the stop takes longer than Grace or
// Abort is closed.
func (o *Operator) enforceGrace(soft, hard context.Context, cancel context.CancelFunc, forced *atomic.Bool) {
	select {
	case <-soft.Done():
		o.Log("stopping", "grace", o.Grace.String())
	case <-o.Abort:
	case <-hard.Done():
		return
	}
	t := time.NewTimer(o.Grace)
	defer t.Stop()
	select {
	case <-t.C:
	case <-o.Abort:
	case <-hard.Done():
		return
	}
	forced.Store(true)
	cancel()
}

// loop runs cycles until soft is closed or hard ends.
func (o *Operator) loop(hard context.Context, soft <-chan struct{}) error {
	var changes <-chan struct{}
	var w *watcher
	if o.Watch {
		cfg, err := o.RESTConfig()
		if err != nil {
			return err
		}
		wctx, cancel := context.WithCancel(hard)
		defer cancel()
		deb := newDebouncer(o.Debounce, o.DebounceMax)
		go deb.run(wctx)
		changes = deb.out
		notify := func(kind string) {
			o.Metrics.WatchEvent(kind)
			deb.notify()
		}
		if w, err = newWatcher(wctx, cfg, o.Namespaces, o.StatusKinds, o.WatchByName, notify, o.Log); err != nil {
			return err
		}
		w.ensure(o.explicitTargets())
	}
	failures := 0
	trigger := "start"
	for {
		if stopped(soft) || hard.Err() != nil {
			return nil
		}
		res, end := o.runCycle(hard, soft, trigger)
		if stopped(soft) || hard.Err() != nil {
			return nil
		}
		if w != nil {
			if len(o.WatchKinds) > 0 {
				w.ensure(o.explicitTargets()) // retries kinds not served yet
			} else {
				w.ensure(res.Targets)
			}
		}
		if res.OK() {
			failures = 0
		} else {
			failures++
		}
		resync, notBefore := o.nextWait(failures)
		var err error
		if trigger, err = o.wait(hard, soft, changes, end, resync, notBefore); err != nil {
			return nil
		}
	}
}

// explicitTargets are the --watch-kind kinds in every configured namespace.
func (o *Operator) explicitTargets() []Target {
	out := make([]Target, 0, len(o.WatchKinds))
	for _, k := range o.WatchKinds {
		out = append(out, Target{GVK: k})
	}
	return out
}

// errStopped ends a wait because of a stop.
var errStopped = errors.New("stopped")

// wait blocks until the next cycle is due: resync after end (never when
// zero), or a change, though not before end+notBefore. It returns the
// trigger's name.
func (o *Operator) wait(hard context.Context, soft <-chan struct{}, changes <-chan struct{}, end time.Time, resync, notBefore time.Duration) (string, error) {
	due := time.Time{}
	if resync > 0 {
		due = end.Add(resync)
	}
	trigger := "interval"
	if o.Watch && notBefore > 0 {
		trigger = "retry"
	}
	for {
		var timer <-chan time.Time
		if !due.IsZero() {
			// Unreferenced timers are collected (Go 1.23+), so no Stop.
			timer = time.NewTimer(time.Until(due)).C
		}
		select {
		case <-soft:
			return "", errStopped
		case <-hard.Done():
			return "", errStopped
		case <-timer:
			return trigger, nil
		case <-changes:
			earliest := end.Add(notBefore)
			if time.Now().Before(earliest) {
				// Backing off: run the change once the backoff ends.
				if due.IsZero() || earliest.Before(due) {
					due, trigger = earliest, "watch"
				}
				changes = nil
				continue
			}
			return "watch", nil
		}
	}
}

// nextWait returns the resync delay and the earliest a change may start a
// cycle, after `failures` consecutive failed cycles:
//   - after a success: Interval, and changes start a cycle at once;
//   - in interval mode, the n-th failure waits min(Interval·2^(n−1),
//     max(Interval, BackoffMax)): polling slows down, never speeds up;
//   - in watch mode, the n-th failure is retried after
//     min(BackoffBase·2^(n−1), BackoffMax), and changes wait that long too,
//     so a broken playbook does not run on every change.
func (o *Operator) nextWait(failures int) (resync, notBefore time.Duration) {
	if failures == 0 {
		return o.Interval, 0
	}
	if !o.Watch {
		return backoff(o.Interval, max(o.Interval, o.BackoffMax), failures), 0
	}
	d := backoff(o.BackoffBase, o.BackoffMax, failures)
	return d, d
}

func backoff(base, limit time.Duration, n int) time.Duration {
	d := base
	for i := 1; i < n && d < limit; i++ {
		d *= 2
	}
	return min(d, limit)
}

func stopped(soft <-chan struct{}) bool {
	select {
	case <-soft:
		return true
	default:
		return false
	}
}

// runCycle runs one cycle and records it.
func (o *Operator) runCycle(hard context.Context, soft <-chan struct{}, trigger string) (CycleResult, time.Time) {
	n := o.cycles.Add(1)
	o.Log("cycle_start", "cycle", n, "trigger", trigger)
	start := time.Now()
	res := o.Cycle(hard, soft)
	end := time.Now()
	interrupted := stopped(soft) || hard.Err() != nil
	kv := []any{"cycle", n, "duration_seconds", end.Sub(start).Seconds(), "rc", res.Code}
	if res.Err != nil {
		kv = append(kv, "error", res.Err.Error())
	}
	result := "ok"
	if !res.OK() {
		result = "failed"
	}
	if interrupted {
		// A cycle cut short by a stop is neither a success nor a failure
		// of the playbook; it is not counted.
		o.Log("cycle_end", append(kv, "result", "stopped")...)
		return res, end
	}
	o.Metrics.CycleDone(res.OK(), end.Sub(start), end)
	o.firstOK.Store(true)
	o.Log("cycle_end", append(kv, "result", result)...)
	return res, end
}
