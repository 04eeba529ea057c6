package operator

import (
	"context"
	"fmt"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// runElected takes part in leader election until soft ends, running the
// loop while this replica holds the Lease. The Lease is released only
// after the loop has stopped (the running task finished), so two replicas
// never run tasks at the same time. After losing the Lease the replica
// stops cycling and becomes a candidate again.
func (o *Operator) runElected(soft, hard context.Context) error {
	cfg, err := o.RESTConfig()
	if err != nil {
		return err
	}
	cfgE, err := LeaderConfig{Config: cfg, Namespace: o.LeaseNamespace, Name: o.LeaseName, Identity: o.Identity,
		LeaseDuration: o.LeaseDuration, RenewDeadline: o.RenewDeadline, RetryPeriod: o.RetryPeriod,
		OnNewLeader: func(id string) { o.Log("leader", "identity", id, "self", id == o.Identity) },
	}.elector()
	if err != nil {
		return err
	}
	o.electing.Store(true)
	defer o.electing.Store(false)
	for soft.Err() == nil && hard.Err() == nil {
		var loopErr error
		leadTerm(hard, soft.Done(), &elector{electorConfig: cfgE}, func(lctx context.Context) {
			o.leading.Store(true)
			o.Metrics.SetLeader(true)
			o.Log("leading", "lease", o.LeaseNamespace+"/"+o.LeaseName, "identity", o.Identity)
			loopErr = o.loop(hard, either(soft.Done(), lctx.Done()))
			o.leading.Store(false)
			o.Metrics.SetLeader(false)
			if lctx.Err() != nil && soft.Err() == nil {
				o.Log("lost_lease", "lease", o.LeaseNamespace+"/"+o.LeaseName)
			}
		})
		if loopErr != nil {
			return loopErr
		}
	}
	return nil
}

// LeaderConfig configures leader election on a coordination.k8s.io Lease
// (see Lead). Zero durations take the defaults 15s, 10s and 2s.
type LeaderConfig struct {
	Config                                    *rest.Config
	Namespace, Name, Identity                 string
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// OnNewLeader is called when the observed holder changes.
	OnNewLeader func(identity string)
}

func (c LeaderConfig) elector() (electorConfig, error) {
	if c.Namespace == "" || c.Name == "" || c.Identity == "" {
		return electorConfig{}, fmt.Errorf("leader election needs a lease namespace, name and identity")
	}
	client, err := dynamic.NewForConfig(c.Config)
	if err != nil {
		return electorConfig{}, err
	}
	def := func(d, v time.Duration) time.Duration {
		if d <= 0 {
			return v
		}
		return d
	}
	e := electorConfig{
		leases: client.Resource(leaseGVR).Namespace(c.Namespace), name: c.Name, identity: c.Identity,
		leaseDuration: def(c.LeaseDuration, 15*time.Second), renewDeadline: def(c.RenewDeadline, 10*time.Second),
		retryPeriod: def(c.RetryPeriod, 2*time.Second), onNewLeader: c.OnNewLeader,
	}
	return e, e.validate()
}

// Lead takes part in the election until ctx ends. Each time this replica
// wins the Lease it calls lead with a context that ends when the Lease is
// lost or ctx ends; the Lease is released only after lead has returned,
// so two replicas never lead at once.
func Lead(ctx context.Context, c LeaderConfig, lead func(lctx context.Context)) error {
	cfgE, err := c.elector()
	if err != nil {
		return err
	}
	for ctx.Err() == nil {
		leadTerm(ctx, ctx.Done(), &elector{electorConfig: cfgE}, lead)
	}
	return nil
}

// leadTerm runs one elector until it stops: either this replica won, ran
// lead and lost (or was asked to stop), or stop closed while it was a
// candidate.
func leadTerm(parent context.Context, stop <-chan struct{}, e *elector, lead func(lctx context.Context)) {
	ectx, cancel := context.WithCancel(parent)
	defer cancel()
	led := make(chan context.Context, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.run(ectx, func(lctx context.Context) { led <- lctx })
	}()
	select {
	case lctx := <-led:
		lead(lctx)
	case <-stop:
	case <-done:
	}
	cancel() // releases the Lease if held
	<-done
}

// either closes when a or b does.
func either(a, b <-chan struct{}) <-chan struct{} {
	out := make(chan struct{})
	go func() {
		select {
		case <-a:
		case <-b:
		}
		close(out)
	}()
	return out
}
