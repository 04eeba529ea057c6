// Package kdisco discovers the resources a Kubernetes apiserver serves and
// maps kinds to resources, over plain REST requests.
//
// It replaces client-go's discovery client, its memory cache and the
// discovery RESTMapper, which import every generated k8s.io/api package;
// this package decodes discovery documents into its own small types.
//
// A Client fetches discovery lazily, once, with two requests (GET /api and
// GET /apis asking for the aggregated discovery document, which servers
// since Kubernetes 1.26 answer with every group's resources). Older servers
// answer with the group lists only; the resources of each group version are
// then fetched with one request each. The result is an immutable Snapshot
// kept until Invalidate or Refresh.
package kdisco

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"
)

// ErrNotServed is returned for a group version the server does not serve.
var ErrNotServed = errors.New("the server does not serve this group version")

// Resource is one resource type that a group version serves.
type Resource struct {
	Group, Version string
	// Kind is the kind of the objects, Name the plural resource name.
	Kind, Name, Singular string
	ShortNames           []string
	// Categories are the resource's categories ("all").
	Categories []string
	Namespaced bool
	Verbs      []string
	// Subresources are the names of the subresources ("status", "scale").
	Subresources []string
}

// GroupVersion is "v1" for the core group, else "group/version".
func (r *Resource) GroupVersion() string {
	return schema.GroupVersion{Group: r.Group, Version: r.Version}.String()
}

// HasSubresource reports whether the resource serves the subresource.
func (r *Resource) HasSubresource(name string) bool {
	for _, s := range r.Subresources {
		if s == name {
			return true
		}
	}
	return false
}

// Client fetches and caches the server's discovery information. It is
// safe for concurrent use.
type Client struct {
	rc rest.Interface
	*Cache
}

// Cache holds the discovery of one server. Clients of the same server
// with different credentials may share it, as kubernetes.core's clients
// share their discovery cache file by host (not by credential); each
// fetch uses the credentials of the client that needs it.
type Cache struct {
	mu   sync.Mutex
	snap *Snapshot     // nil until fetched, or after Invalidate
	busy chan struct{} // closed when the fetch in progress ends
	gen  uint64        // counts Invalidate calls
}

// New returns a client that sends its requests through rc, a REST client
// without a group version (requests use absolute paths).
func New(rc rest.Interface) *Client {
	return &Client{rc: rc, Cache: &Cache{}}
}

// NewShared is New with a cache shared with other clients of the server.
func NewShared(rc rest.Interface, cache *Cache) *Client {
	return &Client{rc: rc, Cache: cache}
}

// NewForConfig returns a client for cfg, sharing httpClient when not nil.
func NewForConfig(cfg *rest.Config, httpClient *http.Client) (*Client, error) {
	rc, err := RESTClientFor(cfg, httpClient)
	if err != nil {
		return nil, err
	}
	return New(rc), nil
}

// RESTClientFor returns a JSON REST client for absolute paths.
func RESTClientFor(cfg *rest.Config, httpClient *http.Client) (*rest.RESTClient, error) {
	raw := dynamic.ConfigFor(cfg)
	raw.GroupVersion = &schema.GroupVersion{}
	if httpClient == nil {
		return rest.RESTClientFor(raw)
	}
	return rest.RESTClientForConfigAndClient(raw, httpClient)
}

// Invalidate drops the cached discovery; the next use fetches it again.
func (c *Client) Invalidate() {
	c.mu.Lock()
	c.snap = nil
	c.gen++
	c.mu.Unlock()
}

// Current returns the cached snapshot, fetching it when there is none.
func (c *Client) Current() (*Snapshot, error) {
	return c.get(nil)
}

// Refresh fetches discovery again unless it has been fetched since stale
// was current (by a concurrent caller), and returns the new snapshot.
// A nil stale fetches only when nothing is cached.
func (c *Client) Refresh(stale *Snapshot) (*Snapshot, error) {
	if stale == nil {
		return c.Current()
	}
	return c.get(stale)
}

// get returns the cached snapshot unless it is nil or stale; otherwise it
// fetches one, or waits for the fetch another caller runs.
func (c *Client) get(stale *Snapshot) (*Snapshot, error) {
	for {
		c.mu.Lock()
		if c.snap != nil && c.snap != stale {
			s := c.snap
			c.mu.Unlock()
			return s, nil
		}
		if c.busy != nil {
			busy := c.busy
			c.mu.Unlock()
			<-busy
			if stale != nil {
				// Whatever the other caller fetched is newer than stale.
				stale = nil
			}
			continue
		}
		busy := make(chan struct{})
		c.busy = busy
		gen := c.gen
		c.mu.Unlock()

		s, err := fetch(context.Background(), c.rc)

		c.mu.Lock()
		if err == nil && gen == c.gen {
			// (An Invalidate during the fetch wants a later one.)
			c.snap = s
		} else if c.snap == stale {
			c.snap = nil
		}
		c.busy = nil
		close(busy)
		c.mu.Unlock()
		return s, err
	}
}

// Snapshot is the discovery information of one fetch. It is immutable.
type Snapshot struct {
	// groups in the server's order, the core group first.
	groups []apiGroup
	gvs    map[string]gvResult

	mapperOnce sync.Once
	mapper     *staticMapper
}

type apiGroup struct {
	name string
	// versions, the preferred one first.
	versions []string
}

type gvResult struct {
	resources []Resource
	err       error
}

// Resources returns the resources of a group version ("v1", "apps/v1").
// The error is ErrNotServed when the server does not serve it, or the
// error that fetching it met.
func (s *Snapshot) Resources(groupVersion string) ([]Resource, error) {
	r, ok := s.gvs[groupVersion]
	if !ok {
		return nil, ErrNotServed
	}
	return r.resources, r.err
}

// ServedVersion is one group version a group serves.
type ServedVersion struct {
	Group, Version string
	// Preferred is the group's preferred version.
	Preferred bool
}

// Versions lists every served group version, group by group in the
// server's order, each group's preferred version first.
func (s *Snapshot) Versions() []ServedVersion {
	var out []ServedVersion
	for _, g := range s.groups {
		for i, v := range g.versions {
			out = append(out, ServedVersion{Group: g.name, Version: v, Preferred: i == 0})
		}
	}
	return out
}

// Groups returns the served group names, the core group ("") first.
func (s *Snapshot) Groups() []string {
	out := make([]string, len(s.groups))
	for i, g := range s.groups {
		out[i] = g.name
	}
	return out
}

// StaleError is the error of a group version that the aggregated discovery
// document marks stale (its aggregated apiserver is unavailable).
type StaleError struct{ GroupVersion string }

func (e *StaleError) Error() string {
	return fmt.Sprintf("stale GroupVersion discovery: %s", e.GroupVersion)
}

// Accept headers: the aggregated discovery document (v2, else v2beta1,
// which has the same layout), else the legacy lists.
const (
	acceptAggregated = "application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList," +
		"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList," +
		"application/json"
	acceptJSON = "application/json"
)

// The discovery documents, as far as this package reads them.
type (
	docHead struct {
		Kind       string `json:"kind"`
		APIVersion string `json:"apiVersion"`
	}
	// APIGroupDiscoveryList (apidiscovery.k8s.io/v2 and v2beta1).
	aggregatedList struct {
		Items []struct {
			Metadata struct {
				Name string `json:"name"`
			} `json:"metadata"`
			Versions []struct {
				Version   string `json:"version"`
				Freshness string `json:"freshness"`
				Resources []struct {
					Resource     string `json:"resource"`
					ResponseKind *struct {
						Kind string `json:"kind"`
					} `json:"responseKind"`
					Scope            string   `json:"scope"`
					SingularResource string   `json:"singularResource"`
					Verbs            []string `json:"verbs"`
					ShortNames       []string `json:"shortNames"`
					Categories       []string `json:"categories"`
					Subresources     []struct {
						Subresource string `json:"subresource"`
					} `json:"subresources"`
				} `json:"resources"`
			} `json:"versions"`
		} `json:"items"`
	}
	// APIVersions (legacy GET /api).
	legacyVersions struct {
		Versions []string `json:"versions"`
	}
	// APIGroupList (legacy GET /apis).
	legacyGroups struct {
		Groups []struct {
			Name     string `json:"name"`
			Versions []struct {
				Version string `json:"version"`
			} `json:"versions"`
			PreferredVersion struct {
				Version string `json:"version"`
			} `json:"preferredVersion"`
		} `json:"groups"`
	}
	// APIResourceList (legacy GET /api/v1, /apis/GROUP/VERSION).
	resourceList struct {
		GroupVersion string `json:"groupVersion"`
		Resources    []struct {
			Name         string   `json:"name"`
			SingularName string   `json:"singularName"`
			Namespaced   bool     `json:"namespaced"`
			Kind         string   `json:"kind"`
			Verbs        []string `json:"verbs"`
			ShortNames   []string `json:"shortNames"`
			Categories   []string `json:"categories"`
		} `json:"resources"`
	}
)

// fetch reads /api and /apis and, for the group versions whose resources
// these did not include, each group version's resource list.
func fetch(ctx context.Context, rc rest.Interface) (*Snapshot, error) {
	s := &Snapshot{gvs: map[string]gvResult{}}
	var pending []schema.GroupVersion
	for _, path := range []string{"/api", "/apis"} {
		body, err := rc.Get().AbsPath(path).SetHeader("Accept", acceptAggregated).Do(ctx).Raw()
		if err != nil {
			if apierrors.IsNotFound(err) {
				continue // tolerated, as old servers and proxies answer so
			}
			return nil, err
		}
		p, err := s.addDocument(path, body)
		if err != nil {
			return nil, err
		}
		pending = append(pending, p...)
	}
	if len(pending) > 0 {
		fetchLegacy(ctx, rc, s, pending)
	}
	return s, nil
}

// addDocument adds the groups of a /api or /apis answer and, when it is
// aggregated, their resources; it returns the group versions still to read.
func (s *Snapshot) addDocument(path string, body []byte) ([]schema.GroupVersion, error) {
	var head docHead
	if err := json.Unmarshal(body, &head); err != nil {
		return nil, fmt.Errorf("decoding %s: %w", path, err)
	}
	switch {
	case head.Kind == "APIGroupDiscoveryList" && strings.HasPrefix(head.APIVersion, "apidiscovery.k8s.io/"):
		var doc aggregatedList
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		for _, item := range doc.Items {
			g := apiGroup{name: item.Metadata.Name}
			for _, v := range item.Versions {
				g.versions = append(g.versions, v.Version)
				gv := schema.GroupVersion{Group: g.name, Version: v.Version}
				if v.Freshness == "Stale" {
					s.gvs[gv.String()] = gvResult{err: &StaleError{GroupVersion: gv.String()}}
					continue
				}
				res := make([]Resource, 0, len(v.Resources))
				for _, r := range v.Resources {
					if r.ResponseKind == nil || r.ResponseKind.Kind == "" {
						continue // not mappable; client-go skips these too
					}
					out := Resource{Group: g.name, Version: v.Version, Kind: r.ResponseKind.Kind,
						Name: r.Resource, Singular: r.SingularResource, ShortNames: r.ShortNames, Categories: r.Categories,
						Namespaced: r.Scope == "Namespaced", Verbs: r.Verbs}
					for _, sub := range r.Subresources {
						out.Subresources = append(out.Subresources, sub.Subresource)
					}
					res = append(res, out)
				}
				s.gvs[gv.String()] = gvResult{resources: res}
			}
			if len(g.versions) > 0 {
				s.groups = append(s.groups, g)
			}
		}
		return nil, nil
	case path == "/api":
		var doc legacyVersions
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		if len(doc.Versions) == 0 {
			return nil, nil
		}
		var pending []schema.GroupVersion
		for _, v := range doc.Versions {
			pending = append(pending, schema.GroupVersion{Version: v})
		}
		s.groups = append(s.groups, apiGroup{versions: doc.Versions})
		return pending, nil
	default:
		var doc legacyGroups
		if err := json.Unmarshal(body, &doc); err != nil {
			return nil, fmt.Errorf("decoding %s: %w", path, err)
		}
		var pending []schema.GroupVersion
		for _, lg := range doc.Groups {
			g := apiGroup{name: lg.Name}
			if p := lg.PreferredVersion.Version; p != "" {
				g.versions = append(g.versions, p)
			}
			for _, v := range lg.Versions {
				if v.Version != lg.PreferredVersion.Version {
					g.versions = append(g.versions, v.Version)
				}
			}
			for _, v := range g.versions {
				pending = append(pending, schema.GroupVersion{Group: g.name, Version: v})
			}
			if len(g.versions) > 0 {
				s.groups = append(s.groups, g)
			}
		}
		return pending, nil
	}
}

// fetchLegacy reads the resource lists of gvs, a few at a time. A failed
// group version keeps its error, as client-go's cache does.
func fetchLegacy(ctx context.Context, rc rest.Interface, s *Snapshot, gvs []schema.GroupVersion) {
	results := make([]gvResult, len(gvs))
	sem := make(chan struct{}, 8)
	var wg sync.WaitGroup
	for i, gv := range gvs {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			results[i] = fetchGroupVersion(ctx, rc, gv)
		}()
	}
	wg.Wait()
	for i, gv := range gvs {
		s.gvs[gv.String()] = results[i]
	}
}

// GroupVersionPath is the discovery path of gv: /api/v1, /apis/GROUP/VERSION.
func GroupVersionPath(gv schema.GroupVersion) string {
	if gv.Group == "" {
		return "/api/" + gv.Version
	}
	return "/apis/" + gv.Group + "/" + gv.Version
}

func fetchGroupVersion(ctx context.Context, rc rest.Interface, gv schema.GroupVersion) gvResult {
	body, err := rc.Get().AbsPath(GroupVersionPath(gv)).SetHeader("Accept", acceptJSON).Do(ctx).Raw()
	if err != nil {
		return gvResult{err: err}
	}
	var doc resourceList
	if err := json.Unmarshal(body, &doc); err != nil {
		return gvResult{err: fmt.Errorf("decoding %s: %w", GroupVersionPath(gv), err)}
	}
	var res []Resource
	index := map[string]int{}
	var subs [][2]string
	for _, r := range doc.Resources {
		if parent, sub, ok := strings.Cut(r.Name, "/"); ok {
			subs = append(subs, [2]string{parent, sub})
			continue
		}
		index[r.Name] = len(res)
		res = append(res, Resource{Group: gv.Group, Version: gv.Version, Kind: r.Kind, Name: r.Name,
			Singular: r.SingularName, ShortNames: r.ShortNames, Categories: r.Categories, Namespaced: r.Namespaced, Verbs: r.Verbs})
	}
	for _, ps := range subs {
		if i, ok := index[ps[0]]; ok {
			res[i].Subresources = append(res[i].Subresources, ps[1])
		}
	}
	return gvResult{resources: res}
}
