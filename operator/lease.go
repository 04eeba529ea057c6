package operator

import (
	"context"
	"errors"
	"math/rand/v2"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
)

// The elector below keeps the Lease fields and timing of client-go's
// leaderelection (which this package used before it pulled every generated
// API type into the binary), with these differences, all on the safe side:
//   - a leader that sees another identity holding an unexpired Lease stops
//     at once, instead of retrying until its renew deadline;
//   - on release it re-reads the Lease and clears it only if it still holds
//     it, so it cannot wipe out a holder that has just taken over;
//   - after losing the Lease it releases only once its loop has stopped;
//   - the first renewal comes one retry period after acquiring;
//   - the leader-change callback runs on the elector's goroutine.

// leaseGVR is the resource of the leader Lease.
var leaseGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// retryJitter spreads the candidates' attempts: each waits between
// RetryPeriod and (1+retryJitter) RetryPeriod.
const retryJitter = 1.2

// electorConfig is what an elector needs; see Config for the durations.
type electorConfig struct {
	leases                                    dynamic.ResourceInterface
	name, identity                            string
	leaseDuration, renewDeadline, retryPeriod time.Duration
	// onNewLeader is called when the observed holder changes.
	onNewLeader func(identity string)
}

func (c *electorConfig) validate() error {
	switch {
	case c.leaseDuration <= 0:
		return errors.New("leaseDuration must be greater than zero")
	case c.renewDeadline <= 0:
		return errors.New("renewDeadline must be greater than zero")
	case c.retryPeriod <= 0:
		return errors.New("retryPeriod must be greater than zero")
	case c.leaseDuration <= c.renewDeadline:
		return errors.New("leaseDuration must be greater than renewDeadline")
	case float64(c.renewDeadline) <= retryJitter*float64(c.retryPeriod):
		return errors.New("renewDeadline must be greater than retryPeriod*JitterFactor")
	}
	return nil
}

// leaseRecord is the part of a Lease's spec that election reads and writes.
// Times are kept as the server renders them (RFC 3339 with microseconds).
type leaseRecord struct {
	holder                 string
	durationSeconds        int64
	acquireTime, renewTime string
	transitions            int64
}

func recordOf(obj *unstructured.Unstructured) leaseRecord {
	var r leaseRecord
	r.holder, _, _ = unstructured.NestedString(obj.Object, "spec", "holderIdentity")
	r.durationSeconds, _, _ = unstructured.NestedInt64(obj.Object, "spec", "leaseDurationSeconds")
	r.acquireTime, _, _ = unstructured.NestedString(obj.Object, "spec", "acquireTime")
	r.renewTime, _, _ = unstructured.NestedString(obj.Object, "spec", "renewTime")
	r.transitions, _, _ = unstructured.NestedInt64(obj.Object, "spec", "leaseTransitions")
	return r
}

func (r leaseRecord) spec() map[string]any {
	return map[string]any{
		"holderIdentity":       r.holder,
		"leaseDurationSeconds": r.durationSeconds,
		"acquireTime":          r.acquireTime,
		"renewTime":            r.renewTime,
		"leaseTransitions":     r.transitions,
	}
}

func microTime(t time.Time) string { return t.UTC().Format(metav1.RFC3339Micro) }

// elector takes part in the election of one Lease for one term. Only its
// run goroutine uses it.
//
// A Lease is valid for its leaseDurationSeconds from when this elector last
// saw its record change (not from its renewTime, so that clocks need not
// agree). A candidate takes the Lease when it is absent, released (no
// holder) or not renewed within that time; the leader renews it every
// RetryPeriod and loses it when no renewal succeeds within RenewDeadline or
// another identity holds it. Writes carry the resourceVersion last read,
// so concurrent candidates cannot both succeed.
type elector struct {
	electorConfig

	lease      *unstructured.Unstructured // last read or written
	observed   leaseRecord
	observedAt time.Time
	reported   string
}

// run competes for the Lease until ctx ends. Once this replica holds it,
// run calls started with a context that ends when the Lease is lost or
// ctx ends, keeps renewing, and after ctx has ended releases the Lease if
// this replica still holds it.
func (e *elector) run(ctx context.Context, started func(lctx context.Context)) {
	if !e.acquire(ctx) {
		return
	}
	lctx, cancel := context.WithCancel(ctx)
	started(lctx)
	e.renew(lctx)
	cancel()
	<-ctx.Done() // the caller's loop has stopped
	e.release()
}

func (e *elector) acquire(ctx context.Context) bool {
	for ctx.Err() == nil {
		ok, _ := e.tryAcquireOrRenew(ctx)
		e.report()
		if ok {
			return true
		}
		wait := e.retryPeriod + time.Duration(rand.Float64()*retryJitter*float64(e.retryPeriod))
		if !sleep(ctx, wait) {
			return false
		}
	}
	return false
}

// renew renews the Lease every RetryPeriod until ctx ends or a renewal
// fails: none succeeded within RenewDeadline, or another identity holds
// the Lease.
func (e *elector) renew(ctx context.Context) {
	for sleep(ctx, e.retryPeriod) {
		dctx, cancel := context.WithTimeout(ctx, e.renewDeadline)
		ok := false
		for {
			var taken bool
			ok, taken = e.tryAcquireOrRenew(dctx)
			if ok || taken || !sleep(dctx, e.retryPeriod) {
				break
			}
		}
		cancel()
		e.report()
		if !ok {
			return
		}
	}
}

// sleep waits d; it reports false when ctx ended first.
func sleep(ctx context.Context, d time.Duration) bool {
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-ctx.Done():
		return false
	case <-t.C:
		return true
	}
}

func (e *elector) leader() bool { return e.observed.holder == e.identity }

func (e *elector) valid(now time.Time) bool {
	return e.observedAt.Add(time.Duration(e.observed.durationSeconds) * time.Second).After(now)
}

func (e *elector) observe(obj *unstructured.Unstructured) {
	e.lease = obj
	if r := recordOf(obj); r != e.observed || e.observedAt.IsZero() {
		e.observed = r
		e.observedAt = time.Now()
	}
}

// tryAcquireOrRenew makes one attempt to take or renew the Lease. taken
// reports that another identity holds it and it has not expired.
func (e *elector) tryAcquireOrRenew(ctx context.Context) (ok, taken bool) {
	now := time.Now()
	want := leaseRecord{holder: e.identity, durationSeconds: int64(e.leaseDuration / time.Second),
		acquireTime: microTime(now), renewTime: microTime(now)}

	// The leader renews with what it last wrote; on a conflict it reads.
	if e.leader() && e.valid(now) && e.lease != nil {
		want.acquireTime, want.transitions = e.observed.acquireTime, e.observed.transitions
		if obj, err := e.write(ctx, e.lease, want); err == nil {
			e.lease, e.observed, e.observedAt = obj, recordOf(obj), time.Now()
			return true, false
		}
	}

	obj, err := e.leases.Get(ctx, e.name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		obj, err = e.create(ctx, want)
		if err != nil {
			return false, false
		}
		e.lease, e.observed, e.observedAt = obj, recordOf(obj), time.Now()
		return true, false
	}
	if err != nil {
		return false, false
	}
	e.observe(obj)
	if e.observed.holder != "" && !e.leader() && e.valid(now) {
		return false, true
	}
	if e.leader() {
		want.acquireTime, want.transitions = e.observed.acquireTime, e.observed.transitions
	} else {
		want.transitions = e.observed.transitions + 1
	}
	obj, err = e.write(ctx, obj, want)
	if err != nil {
		return false, false
	}
	e.lease, e.observed, e.observedAt = obj, recordOf(obj), time.Now()
	return true, false
}

// write replaces the spec of lease, as last read, with rec.
func (e *elector) write(ctx context.Context, lease *unstructured.Unstructured, rec leaseRecord) (*unstructured.Unstructured, error) {
	obj := lease.DeepCopy()
	obj.Object["spec"] = rec.spec()
	return e.leases.Update(ctx, obj, metav1.UpdateOptions{})
}

func (e *elector) create(ctx context.Context, rec leaseRecord) (*unstructured.Unstructured, error) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "coordination.k8s.io/v1",
		"kind":       "Lease",
		"metadata":   map[string]any{"name": e.name},
		"spec":       rec.spec(),
	}}
	return e.leases.Create(ctx, obj, metav1.CreateOptions{})
}

// report calls onNewLeader when the observed holder changed.
func (e *elector) report() {
	if e.observed.holder == e.reported {
		return
	}
	e.reported = e.observed.holder
	if e.onNewLeader != nil {
		e.onNewLeader(e.reported)
	}
}

// release gives the Lease up, if this replica still holds it, so that a
// candidate takes over at its next attempt instead of after the lease
// duration.
func (e *elector) release() {
	ctx, cancel := context.WithTimeout(context.Background(), e.renewDeadline)
	defer cancel()
	obj, err := e.leases.Get(ctx, e.name, metav1.GetOptions{})
	if err != nil {
		return
	}
	cur := recordOf(obj)
	if cur.holder != e.identity {
		return
	}
	now := time.Now()
	_, _ = e.write(ctx, obj, leaseRecord{durationSeconds: 1, acquireTime: microTime(now),
		renewTime: microTime(now), transitions: cur.transitions})
}
