package k8s

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules/k8s/kdisco"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
)

// apiResource is one discovered resource type.
type apiResource struct {
	Kind, Name, Singular string
	ShortNames           []string
	GroupVersion         string // "v1", "apps/v1"
	Namespaced           bool
	Subresources         map[string]bool
	// Verbs are the verbs discovery lists for the resource.
	Verbs []string
}

// findResource looks kind up in apiVersion by kind, plural name, singular
// name, then short name, as kubernetes.core does. A miss refreshes the
// discovery cache once, so kinds installed during the run are found. It
// returns nil, nil when there is no such resource.
func (c *Clients) findResource(kind, apiVersion string) (*apiResource, error) {
	snap, err := c.Discovery.Current()
	if err != nil {
		return nil, err
	}
	r, err := lookupResource(snap, kind, apiVersion)
	if r != nil || err != nil {
		return r, err
	}
	if snap, err = c.Discovery.Refresh(snap); err != nil {
		return nil, err
	}
	return lookupResource(snap, kind, apiVersion)
}

func lookupResource(snap *kdisco.Snapshot, kind, apiVersion string) (*apiResource, error) {
	r, err := lookupIn(snap, kind, apiVersion)
	if r != nil || err != nil || apiVersion != "v1" {
		return r, err
	}
	return lookupAnyGroup(snap, kind, "v1")
}

// lookupAnyGroup is kubernetes.core's second search for apiVersion "v1"
// (its default api_version): a kind not in the core group is looked for
// in every group's version v1 (a Deployment given as v1 is apps/v1's),
// by kind, plural name, singular name, then short name, taking a match
// only when it is unique.
func lookupAnyGroup(snap *kdisco.Snapshot, kind, version string) (*apiResource, error) {
	var all []*apiResource
	for _, g := range snap.Groups() {
		if g == "" {
			continue
		}
		list, err := snap.Resources(g + "/" + version)
		if err != nil {
			continue
		}
		for i := range list {
			all = append(all, toAPIResource(&list[i]))
		}
	}
	for _, pick := range resourcePicks(kind) {
		var found *apiResource
		unique := true
		for _, r := range all {
			if !pick(r) {
				continue
			}
			if found != nil && (found.GroupVersion != r.GroupVersion || found.Kind != r.Kind) {
				unique = false
				break
			}
			if found == nil {
				found = r
			}
		}
		if found != nil && unique {
			return found, nil
		}
	}
	return nil, nil
}

func toAPIResource(r *kdisco.Resource) *apiResource {
	res := &apiResource{Kind: r.Kind, Name: r.Name, Singular: r.Singular,
		ShortNames: r.ShortNames, GroupVersion: r.GroupVersion(), Namespaced: r.Namespaced, Verbs: r.Verbs}
	if len(r.Subresources) > 0 {
		res.Subresources = map[string]bool{}
		for _, sub := range r.Subresources {
			res.Subresources[sub] = true
		}
	}
	return res
}

// resourcePicks are the matches kubernetes.core tries in turn.
func resourcePicks(kind string) []func(*apiResource) bool {
	return []func(*apiResource) bool{
		func(r *apiResource) bool { return r.Kind == kind },
		func(r *apiResource) bool { return r.Name == kind },
		func(r *apiResource) bool { return r.Singular == kind },
		func(r *apiResource) bool {
			for _, s := range r.ShortNames {
				if s == kind {
					return true
				}
			}
			return false
		},
	}
}

func lookupIn(snap *kdisco.Snapshot, kind, apiVersion string) (*apiResource, error) {
	list, err := snap.Resources(apiVersion)
	if err != nil {
		if errors.Is(err, kdisco.ErrNotServed) || apierrors.IsNotFound(err) {
			return nil, nil
		}
		return nil, err
	}
	top := make([]*apiResource, 0, len(list))
	for i := range list {
		top = append(top, toAPIResource(&list[i]))
	}
	for _, pick := range resourcePicks(kind) {
		for _, r := range top {
			if pick(r) {
				return r, nil
			}
		}
	}
	return nil, nil
}

// path returns the URL path of the resource, of one object when name is
// set, in namespace when the resource is namespaced and namespace is set.
func (r *apiResource) path(name, namespace string) string {
	var b strings.Builder
	if strings.Contains(r.GroupVersion, "/") {
		b.WriteString("/apis/")
	} else {
		b.WriteString("/api/")
	}
	b.WriteString(r.GroupVersion)
	if r.Namespaced && namespace != "" {
		b.WriteString("/namespaces/")
		b.WriteString(url.PathEscape(namespace))
	}
	b.WriteString("/")
	b.WriteString(r.Name)
	if name != "" {
		b.WriteString("/")
		b.WriteString(url.PathEscape(name))
	}
	return b.String()
}

// apiError is a failed API request: the server's status and body, or the
// transport error.
type apiError struct {
	code int
	body []byte
	err  error
}

// Error renders the error as kubernetes.core embeds it in its messages:
// the response body as a Python bytes literal, else the transport error.
func (e *apiError) Error() string {
	if len(e.body) > 0 {
		return py.BytesRepr(e.body)
	}
	if e.err != nil {
		return pyTransportError(e.err)
	}
	return fmt.Sprintf("(%d)\nReason: %s", e.code, http.StatusText(e.code))
}

// Reason is the HTTP reason phrase, which kubernetes.core returns as
// `reason` of a failed task.
func (e *apiError) Reason() string {
	if e.code == 0 {
		return ""
	}
	return http.StatusText(e.code)
}

func errCode(err error) int {
	var ae *apiError
	if errors.As(err, &ae) {
		return ae.code
	}
	return 0
}

// request is one API call.
type request struct {
	verb, path  string
	query       url.Values
	contentType string
	body        any // encoded as JSON unless []byte
}

// response is a decoded answer with the server's warnings.
type response struct {
	obj      any
	warnings []string
}

// do performs an API call and decodes the JSON answer keeping key order.
func (c *Clients) do(ctx context.Context, rq request) (*response, error) {
	req := c.raw.Verb(rq.verb).AbsPath(rq.path)
	for k, vs := range rq.query {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	if rq.body != nil {
		var data []byte
		switch b := rq.body.(type) {
		case []byte:
			data = b
		default:
			data = []byte(value.JSON(b, value.JSONOptions{}))
		}
		req = req.Body(data)
	}
	if rq.contentType != "" {
		req = req.SetHeader("Content-Type", rq.contentType)
	}
	res := req.Do(ctx)
	raw, err := res.Raw()
	var code int
	res.StatusCode(&code)
	if err != nil {
		if code == 0 || len(raw) == 0 {
			return nil, &apiError{code: code, err: err}
		}
		return nil, &apiError{code: code, body: raw}
	}
	obj, err := value.DecodeJSON(raw)
	if err != nil {
		return nil, &apiError{code: code, err: err}
	}
	out := &response{obj: obj}
	for _, w := range res.Warnings() {
		out.warnings = append(out.warnings, w.Text)
	}
	return out, nil
}
