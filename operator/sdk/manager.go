package sdk

import (
	"context"
	"fmt"
	"net/http"
	"sync"
	"time"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cfzt/cfzt-runner/modules/k8s/kdisco"
	"github.com/cfzt/cfzt-runner/operator"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// Manager runs one Controller per watch, optionally only while this
// replica holds a leader Lease, and serves metrics and health probes.
type Manager struct {
	Watches []*Watch
	Env     *Env
	Config  *rest.Config
	// Leader, when not nil, is the Lease to hold before reconciling.
	Leader *operator.LeaderConfig
	// MetricsAddr serves /metrics, ProbeAddr /healthz and /readyz ("" or
	// "0": not served).
	MetricsAddr, ProbeAddr string
	// ExtraMetrics are written after the ansible-operator metrics.
	ExtraMetrics []prometheus.Gatherer
	// MappingRetry is how often a kind the apiserver does not serve yet is
	// looked up again (default 5s).
	MappingRetry time.Duration
}

// Run runs until ctx ends.
func (m *Manager) Run(ctx context.Context) error {
	dyn, err := dynamic.NewForConfig(m.Config)
	if err != nil {
		return err
	}
	dc, err := kdisco.NewForConfig(m.Config, nil)
	if err != nil {
		return err
	}
	m.Env.Dyn = dyn
	m.Env.Mapper = &kdisco.Mapper{Client: dc, RefreshOnMiss: true}
	m.serve(ctx)
	if m.Leader == nil {
		m.runControllers(ctx)
		return nil
	}
	return operator.Lead(ctx, *m.Leader, func(lctx context.Context) {
		m.Env.Log.Info("leader", "successfully acquired lease", "lease", m.Leader.Namespace+"/"+m.Leader.Name)
		m.runControllers(lctx)
	})
}

// serve starts the metrics and probe endpoints, which answer whether or
// not this replica leads.
func (m *Manager) serve(ctx context.Context) {
	start := func(addr string, routes map[string]http.HandlerFunc) {
		if addr == "" || addr == "0" {
			return
		}
		go func() {
			if err := operator.Serve(ctx, addr, routes, nil); err != nil {
				m.Env.Log.Error("setup", "server stopped", err, "addr", addr)
			}
		}()
	}
	start(m.MetricsAddr, map[string]http.HandlerFunc{"/metrics": operator.MetricsHandler(append([]prometheus.Gatherer{m.Env.Metrics.Gatherer()}, m.ExtraMetrics...)...)})
	start(m.ProbeAddr, operator.HealthRoutes(func() bool { return true }))
}

// runControllers maps every watch to its resource (waiting for kinds not
// served yet) and runs its controller until ctx ends.
func (m *Manager) runControllers(ctx context.Context) {
	var wg sync.WaitGroup
	for _, w := range m.Watches {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c, err := m.controller(ctx, w)
			if err != nil {
				return
			}
			c.Run(ctx)
		}()
	}
	wg.Wait()
}

func (m *Manager) controller(ctx context.Context, w *Watch) (*Controller, error) {
	retry := m.MappingRetry
	if retry <= 0 {
		retry = 5 * time.Second
	}
	logged := false
	for {
		mapping, err := m.Env.Mapper.RESTMapping(w.GVK.GroupKind(), w.GVK.Version)
		if err == nil {
			return &Controller{Watch: w, Resource: mapping.Resource, Namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace, Env: m.Env}, nil
		}
		if !logged {
			m.Env.Log.Error("controller", fmt.Sprintf("kind %s is not served yet; retrying every %s", w.GVK, retry), err)
			logged = true
		}
		select {
		case <-ctx.Done():
			return nil, ctx.Err()
		case <-time.After(retry):
		}
	}
}
