package operator

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/dynamic"
)

// Two electors in one process: one leads at a time, the Lease reads back
// as client-go's typed Lease, and a release hands over at the next attempt.
func TestElectorLease(t *testing.T) {
	ns := "lease-unit"
	createNamespace(t, ns)
	// A previous run (-count) leaves the Lease to the intruder.
	_ = kube.CoordinationV1().Leases(ns).Delete(context.Background(), "unit", metav1.DeleteOptions{})
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	cfg := func(id string) electorConfig {
		return electorConfig{leases: dyn.Resource(leaseGVR).Namespace(ns), name: "unit", identity: id,
			leaseDuration: 3 * time.Second, renewDeadline: 2 * time.Second, retryPeriod: 100 * time.Millisecond}
	}

	type leader struct {
		id   string
		lctx context.Context
	}
	led := make(chan leader, 2)
	var mu sync.Mutex
	seen := map[string][]string{}
	start := func(id string) (context.CancelFunc, chan struct{}) {
		c := cfg(id)
		c.onNewLeader = func(l string) { mu.Lock(); seen[id] = append(seen[id], l); mu.Unlock() }
		ctx, cancel := context.WithCancel(context.Background())
		done := make(chan struct{})
		go func() {
			defer close(done)
			(&elector{electorConfig: c}).run(ctx, func(lctx context.Context) { led <- leader{id, lctx} })
		}()
		return cancel, done
	}
	cancelA, doneA := start("a")
	var first leader
	select {
	case first = <-led:
	case <-time.After(10 * time.Second):
		t.Fatal("no elector leads")
	}
	require.Equal(t, "a", first.id)
	cancelB, doneB := start("b")
	time.Sleep(time.Second) // a renews several times; b must not lead
	select {
	case l := <-led:
		t.Fatalf("%s leads too", l.id)
	default:
	}
	lease, err := kube.CoordinationV1().Leases(ns).Get(context.Background(), "unit", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "a", *lease.Spec.HolderIdentity)
	require.EqualValues(t, 3, *lease.Spec.LeaseDurationSeconds)
	require.EqualValues(t, 0, *lease.Spec.LeaseTransitions)
	require.WithinDuration(t, time.Now(), lease.Spec.RenewTime.Time, time.Second)
	acquired := lease.Spec.AcquireTime.Time

	// a stops and releases; b takes over well before the lease duration.
	stop := time.Now()
	cancelA()
	<-doneA
	require.Error(t, first.lctx.Err())
	var second leader
	select {
	case second = <-led:
	case <-time.After(10 * time.Second):
		t.Fatal("b did not take over")
	}
	require.Equal(t, "b", second.id)
	require.Less(t, time.Since(stop), 2*time.Second)
	lease, err = kube.CoordinationV1().Leases(ns).Get(context.Background(), "unit", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "b", *lease.Spec.HolderIdentity)
	require.EqualValues(t, 1, *lease.Spec.LeaseTransitions)
	require.True(t, lease.Spec.AcquireTime.After(acquired))

	// Another identity writes itself in: b loses at its next renewal.
	intruder, d := "intruder", int32(3600)
	now := metav1.NewMicroTime(time.Now())
	lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds, lease.Spec.RenewTime = &intruder, &d, &now
	for {
		_, err = kube.CoordinationV1().Leases(ns).Update(context.Background(), lease, metav1.UpdateOptions{})
		if err == nil {
			break
		}
		lease, err = kube.CoordinationV1().Leases(ns).Get(context.Background(), "unit", metav1.GetOptions{})
		require.NoError(t, err)
		lease.Spec.HolderIdentity, lease.Spec.LeaseDurationSeconds, lease.Spec.RenewTime = &intruder, &d, &now
	}
	select {
	case <-second.lctx.Done():
	case <-time.After(2 * time.Second):
		t.Fatal("b did not notice it lost the lease")
	}
	cancelB()
	<-doneB
	lease, err = kube.CoordinationV1().Leases(ns).Get(context.Background(), "unit", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "intruder", *lease.Spec.HolderIdentity, "b must not release a lease it lost")

	mu.Lock()
	defer mu.Unlock()
	require.Equal(t, []string{"a"}, seen["a"])
	require.Equal(t, []string{"a", "b", "intruder"}, seen["b"])
}

func TestElectorConfigValidate(t *testing.T) {
	ok := electorConfig{leaseDuration: 15 * time.Second, renewDeadline: 10 * time.Second, retryPeriod: 2 * time.Second}
	require.NoError(t, ok.validate())
	bad := ok
	bad.renewDeadline = 15 * time.Second
	require.EqualError(t, bad.validate(), "leaseDuration must be greater than renewDeadline")
	bad = ok
	bad.retryPeriod = 9 * time.Second
	require.EqualError(t, bad.validate(), "renewDeadline must be greater than retryPeriod*JitterFactor")
}
