package operator

import (
	"context"
	"fmt"

	"k8s.io/client-go/dynamic"
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
	client, err := dynamic.NewForConfig(cfg)
	if err != nil {
		return err
	}
	if o.LeaseNamespace == "" || o.LeaseName == "" || o.Identity == "" {
		return fmt.Errorf("leader election needs a lease namespace, name and identity")
	}
	cfgE := electorConfig{
		leases:        client.Resource(leaseGVR).Namespace(o.LeaseNamespace),
		name:          o.LeaseName,
		identity:      o.Identity,
		leaseDuration: o.LeaseDuration,
		renewDeadline: o.RenewDeadline,
		retryPeriod:   o.RetryPeriod,
		onNewLeader: func(id string) {
			o.Log("leader", "identity", id, "self", id == o.Identity)
		},
	}
	if err := cfgE.validate(); err != nil {
		return err
	}
	o.electing.Store(true)
	defer o.electing.Store(false)
	for soft.Err() == nil && hard.Err() == nil {
		if err := o.term(soft, hard, &elector{electorConfig: cfgE}); err != nil {
			return err
		}
	}
	return nil
}

// term runs one elector until it stops: either this replica led and lost
// (or was asked to stop), or soft ended while it was a candidate.
func (o *Operator) term(soft, hard context.Context, e *elector) error {
	ectx, cancel := context.WithCancel(hard)
	defer cancel()
	led := make(chan context.Context, 1)
	done := make(chan struct{})
	go func() {
		defer close(done)
		e.run(ectx, func(lctx context.Context) { led <- lctx })
	}()
	var err error
	select {
	case lctx := <-led:
		o.leading.Store(true)
		o.Metrics.SetLeader(true)
		o.Log("leading", "lease", o.LeaseNamespace+"/"+o.LeaseName, "identity", o.Identity)
		err = o.loop(hard, either(soft.Done(), lctx.Done()))
		o.leading.Store(false)
		o.Metrics.SetLeader(false)
		if lctx.Err() != nil && soft.Err() == nil {
			o.Log("lost_lease", "lease", o.LeaseNamespace+"/"+o.LeaseName)
		}
	case <-soft.Done():
	case <-done:
	}
	cancel() // releases the Lease if held
	<-done
	return err
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
