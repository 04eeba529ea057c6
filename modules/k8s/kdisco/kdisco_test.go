package kdisco

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/rest"
)

const aggregatedCore = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
 {"metadata":{"creationTimestamp":null},"versions":[{"version":"v1","freshness":"Current","resources":[
  {"resource":"configmaps","responseKind":{"group":"","version":"","kind":"ConfigMap"},"scope":"Namespaced","singularResource":"configmap","verbs":["get","list"],"shortNames":["cm"]},
  {"resource":"namespaces","responseKind":{"group":"","version":"","kind":"Namespace"},"scope":"Cluster","singularResource":"namespace","verbs":["get"],"shortNames":["ns"],
   "subresources":[{"subresource":"status","responseKind":{"group":"","version":"","kind":"Namespace"},"verbs":["get"]},{"subresource":"finalize","verbs":["update"]}]}]}]}]}`

const aggregatedGroups = `{"kind":"APIGroupDiscoveryList","apiVersion":"apidiscovery.k8s.io/v2","metadata":{},"items":[
 {"metadata":{"name":"apps"},"versions":[{"version":"v1","resources":[
  {"resource":"deployments","responseKind":{"group":"","version":"","kind":"Deployment"},"scope":"Namespaced","singularResource":"deployment","shortNames":["deploy"],
   "subresources":[{"subresource":"scale","responseKind":{"group":"autoscaling","version":"v1","kind":"Scale"}}]}]}]},
 {"metadata":{"name":"test.io"},"versions":[
  {"version":"v2","resources":[{"resource":"widgets","responseKind":{"kind":"Widget"},"scope":"Cluster","singularResource":"widget"}]},
  {"version":"v1","resources":[{"resource":"widgets","responseKind":{"kind":"Widget"},"scope":"Cluster","singularResource":"widget"},
                               {"resource":"olds","responseKind":{"kind":"Old"},"scope":"Namespaced","singularResource":"old"},
                               {"resource":"nokind","scope":"Namespaced"}]}]},
 {"metadata":{"name":"metrics.k8s.io"},"versions":[{"version":"v1beta1","freshness":"Stale"}]}]}`

// fakeServer answers discovery; aggregated selects the document format.
type fakeServer struct {
	*httptest.Server
	aggregated bool
	mu         sync.Mutex
	requests   []string
	extraGroup atomic.Bool // serves group extra.io
}

func newFake(t *testing.T, aggregated bool) (*fakeServer, *Client) {
	f := &fakeServer{aggregated: aggregated}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	rc, err := RESTClientFor(&rest.Config{Host: f.URL}, nil)
	require.NoError(t, err)
	return f, New(rc)
}

func (f *fakeServer) took() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	out := f.requests
	f.requests = nil
	return out
}

func (f *fakeServer) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.URL.Path)
	f.mu.Unlock()
	accept := r.Header.Get("Accept")
	agg := f.aggregated && strings.Contains(accept, "as=APIGroupDiscoveryList")
	w.Header().Set("Content-Type", "application/json")
	extra := f.extraGroup.Load()
	switch r.URL.Path {
	case "/api":
		if agg {
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			w.Write([]byte(aggregatedCore))
			return
		}
		w.Write([]byte(`{"kind":"APIVersions","versions":["v1"]}`))
	case "/apis":
		if agg {
			doc := aggregatedGroups
			if extra {
				doc = strings.Replace(doc, `"items":[`, `"items":[{"metadata":{"name":"extra.io"},"versions":[{"version":"v1","resources":[{"resource":"things","responseKind":{"kind":"Thing"},"scope":"Namespaced","singularResource":"thing"}]}]},`, 1)
			}
			w.Header().Set("Content-Type", "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList")
			w.Write([]byte(doc))
			return
		}
		groups := `{"name":"apps","versions":[{"groupVersion":"apps/v1","version":"v1"}],"preferredVersion":{"groupVersion":"apps/v1","version":"v1"}},
			{"name":"test.io","versions":[{"groupVersion":"test.io/v1","version":"v1"},{"groupVersion":"test.io/v2","version":"v2"}],"preferredVersion":{"groupVersion":"test.io/v2","version":"v2"}},
			{"name":"metrics.k8s.io","versions":[{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}],"preferredVersion":{"groupVersion":"metrics.k8s.io/v1beta1","version":"v1beta1"}}`
		if extra {
			groups = `{"name":"extra.io","versions":[{"groupVersion":"extra.io/v1","version":"v1"}],"preferredVersion":{"groupVersion":"extra.io/v1","version":"v1"}},` + groups
		}
		w.Write([]byte(`{"kind":"APIGroupList","apiVersion":"v1","groups":[` + groups + `]}`))
	case "/api/v1":
		w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"v1","resources":[
			{"name":"configmaps","singularName":"configmap","namespaced":true,"kind":"ConfigMap","verbs":["get","list"],"shortNames":["cm"]},
			{"name":"namespaces","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get"],"shortNames":["ns"]},
			{"name":"namespaces/status","singularName":"","namespaced":false,"kind":"Namespace","verbs":["get"]},
			{"name":"namespaces/finalize","singularName":"","namespaced":false,"kind":"Namespace","verbs":["update"]}]}`))
	case "/apis/apps/v1":
		w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"apps/v1","resources":[
			{"name":"deployments","singularName":"deployment","namespaced":true,"kind":"Deployment","shortNames":["deploy"]},
			{"name":"deployments/scale","singularName":"","namespaced":true,"group":"autoscaling","version":"v1","kind":"Scale"}]}`))
	case "/apis/test.io/v1":
		w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"test.io/v1","resources":[
			{"name":"widgets","singularName":"widget","namespaced":false,"kind":"Widget"},
			{"name":"olds","singularName":"old","namespaced":true,"kind":"Old"}]}`))
	case "/apis/test.io/v2":
		w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"test.io/v2","resources":[
			{"name":"widgets","singularName":"widget","namespaced":false,"kind":"Widget"}]}`))
	case "/apis/extra.io/v1":
		w.Write([]byte(`{"kind":"APIResourceList","groupVersion":"extra.io/v1","resources":[
			{"name":"things","singularName":"thing","namespaced":true,"kind":"Thing"}]}`))
	case "/apis/metrics.k8s.io/v1beta1":
		w.WriteHeader(http.StatusServiceUnavailable)
		w.Write([]byte(`{"kind":"Status","apiVersion":"v1","status":"Failure","message":"unavailable","reason":"ServiceUnavailable","code":503}`))
	default:
		http.NotFound(w, r)
	}
}

func TestDiscovery(t *testing.T) {
	for _, aggregated := range []bool{true, false} {
		name := "legacy"
		if aggregated {
			name = "aggregated"
		}
		t.Run(name, func(t *testing.T) {
			f, c := newFake(t, aggregated)
			s, err := c.Current()
			require.NoError(t, err)
			reqs := f.took()
			if aggregated {
				require.Equal(t, []string{"/api", "/apis"}, reqs)
			} else {
				require.Len(t, reqs, 7) // /api, /apis and each group version
			}
			require.Equal(t, []string{"", "apps", "test.io", "metrics.k8s.io"}, s.Groups())

			core, err := s.Resources("v1")
			require.NoError(t, err)
			require.Len(t, core, 2)
			require.Equal(t, Resource{Version: "v1", Kind: "ConfigMap", Name: "configmaps", Singular: "configmap",
				ShortNames: []string{"cm"}, Namespaced: true, Verbs: []string{"get", "list"}}, core[0])
			require.Equal(t, "Namespace", core[1].Kind)
			require.False(t, core[1].Namespaced)
			require.Equal(t, []string{"status", "finalize"}, core[1].Subresources)
			require.True(t, core[1].HasSubresource("finalize"))

			apps, err := s.Resources("apps/v1")
			require.NoError(t, err)
			require.Equal(t, "apps/v1", apps[0].GroupVersion())
			require.Equal(t, []string{"scale"}, apps[0].Subresources)

			old, err := s.Resources("test.io/v1")
			require.NoError(t, err)
			require.Len(t, old, 2) // a resource without a kind is left out

			_, err = s.Resources("nope/v1")
			require.ErrorIs(t, err, ErrNotServed)
			_, err = s.Resources("metrics.k8s.io/v1beta1")
			require.Error(t, err)

			// Cached: no more requests.
			s2, err := c.Current()
			require.NoError(t, err)
			require.Same(t, s, s2)
			require.Empty(t, f.took())

			m := &Mapper{Client: c}
			mp, err := m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
			require.NoError(t, err)
			require.Equal(t, schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}, mp.Resource)
			require.Equal(t, meta.RESTScopeNameNamespace, mp.Scope.Name())
			mp, err = m.RESTMapping(schema.GroupKind{Kind: "Namespace"})
			require.NoError(t, err)
			require.Equal(t, meta.RESTScopeNameRoot, mp.Scope.Name())
			// The preferred version first, unless one is asked for.
			mp, err = m.RESTMapping(schema.GroupKind{Group: "test.io", Kind: "Widget"})
			require.NoError(t, err)
			require.Equal(t, "v2", mp.Resource.Version)
			mp, err = m.RESTMapping(schema.GroupKind{Group: "test.io", Kind: "Widget"}, "v1")
			require.NoError(t, err)
			require.Equal(t, "v1", mp.Resource.Version)
			mp, err = m.RESTMapping(schema.GroupKind{Group: "test.io", Kind: "Old"})
			require.NoError(t, err)
			require.Equal(t, schema.GroupVersionResource{Group: "test.io", Version: "v1", Resource: "olds"}, mp.Resource)
			gvr, err := m.ResourceFor(schema.GroupVersionResource{Resource: "deployment"})
			require.NoError(t, err)
			require.Equal(t, schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, gvr)
			gvk, err := m.KindFor(schema.GroupVersionResource{Resource: "namespaces"})
			require.NoError(t, err)
			require.Equal(t, schema.GroupVersionKind{Version: "v1", Kind: "Namespace"}, gvk)
			_, err = m.RESTMapping(schema.GroupKind{Group: "extra.io", Kind: "Thing"}, "v1")
			require.True(t, meta.IsNoMatchError(err), "%v", err)
			require.Empty(t, f.took())

			// A group installed later is found after a refresh: on a miss
			// with RefreshOnMiss, or after Reset.
			f.extraGroup.Store(true)
			_, err = m.RESTMapping(schema.GroupKind{Group: "extra.io", Kind: "Thing"}, "v1")
			require.True(t, meta.IsNoMatchError(err), "%v", err)
			m.Reset()
			mp, err = m.RESTMapping(schema.GroupKind{Group: "extra.io", Kind: "Thing"}, "v1")
			require.NoError(t, err)
			require.Equal(t, "things", mp.Resource.Resource)
			f.took()
		})
	}
}

func TestRefreshOnMissOnce(t *testing.T) {
	f, c := newFake(t, true)
	m := &Mapper{Client: c, RefreshOnMiss: true}
	_, err := m.RESTMapping(schema.GroupKind{Group: "extra.io", Kind: "Thing"}, "v1")
	require.True(t, meta.IsNoMatchError(err), "%v", err)
	require.Len(t, f.took(), 4, "the first fetch and one refresh")
	f.extraGroup.Store(true)
	mp, err := m.RESTMapping(schema.GroupKind{Group: "extra.io", Kind: "Thing"}, "v1")
	require.NoError(t, err)
	require.Equal(t, "things", mp.Resource.Resource)
	require.Len(t, f.took(), 2)
	_, err = m.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
	require.NoError(t, err)
	require.Empty(t, f.took())
}

// Concurrent refreshes of the same stale snapshot fetch once.
func TestConcurrentRefresh(t *testing.T) {
	f, c := newFake(t, true)
	s, err := c.Current()
	require.NoError(t, err)
	f.took()
	var wg sync.WaitGroup
	got := make([]*Snapshot, 8)
	for i := range got {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], _ = c.Refresh(s)
		}()
	}
	wg.Wait()
	for _, g := range got {
		require.NotNil(t, g)
		require.NotSame(t, s, g)
		require.Same(t, got[0], g)
	}
	require.Len(t, f.took(), 2)
}

func TestFetchError(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusInternalServerError)
	}))
	defer srv.Close()
	rc, err := RESTClientFor(&rest.Config{Host: srv.URL}, nil)
	require.NoError(t, err)
	c := New(rc)
	_, err = c.Current()
	require.Error(t, err)
	_, err = (&Mapper{Client: c, RefreshOnMiss: true}).RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
	require.Error(t, err)
	require.False(t, meta.IsNoMatchError(err))
}
