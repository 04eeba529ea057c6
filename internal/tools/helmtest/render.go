package helmtest

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"path/filepath"
	"sort"
	"strings"

	"helm.sh/helm/v3/pkg/chart"
	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/releaseutil"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
)

// KubeVersion is the Kubernetes version charts are rendered for: the
// version of the test kube-apiserver (internal/kubetest).
const KubeVersion = "v1.36.3"

// Rendered is a chart rendered the way `helm template` does it.
type Rendered struct {
	Chart *chart.Chart
	// CRDs are the chart's crds/ files, which Helm installs before the
	// templates and never templates.
	CRDs []*unstructured.Unstructured
	// Objects are the rendered templates' objects in Helm's install order.
	Objects []*unstructured.Unstructured
	// Notes is the rendered NOTES.txt.
	Notes string
}

// Render loads the chart in dir and renders it for a release named name in
// namespace with the user-supplied values (merged over values.yaml and
// validated against values.schema.json), in strict mode.
func Render(dir, name, namespace string, values map[string]any) (*Rendered, error) {
	chrt, err := loader.Load(dir)
	if err != nil {
		return nil, err
	}
	if err := chrt.Validate(); err != nil {
		return nil, err
	}
	caps := chartutil.DefaultCapabilities.Copy()
	kv, err := chartutil.ParseKubeVersion(KubeVersion)
	if err != nil {
		return nil, err
	}
	caps.KubeVersion = *kv
	opts := chartutil.ReleaseOptions{Name: name, Namespace: namespace, Revision: 1, IsInstall: true}
	vals, err := chartutil.ToRenderValues(chrt, values, opts, caps)
	if err != nil {
		return nil, err
	}
	files, err := engine.Engine{Strict: true, LintMode: false}.Render(chrt, vals)
	if err != nil {
		return nil, err
	}
	r := &Rendered{Chart: chrt}
	for name, content := range files {
		if strings.HasSuffix(name, "NOTES.txt") {
			r.Notes = content
			delete(files, name)
		}
	}
	hooks, manifests, err := releaseutil.SortManifests(files, caps.APIVersions, releaseutil.InstallOrder)
	if err != nil {
		return nil, err
	}
	if len(hooks) > 0 {
		return nil, fmt.Errorf("the chart has %d hooks; this test does not run hooks", len(hooks))
	}
	for _, m := range manifests {
		objs, err := Decode(m.Content)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", m.Name, err)
		}
		r.Objects = append(r.Objects, objs...)
	}
	crds := chrt.CRDObjects()
	sort.Slice(crds, func(i, j int) bool { return crds[i].Filename < crds[j].Filename })
	for _, c := range crds {
		objs, err := Decode(string(c.File.Data))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", c.Filename, err)
		}
		r.CRDs = append(r.CRDs, objs...)
	}
	return r, nil
}

// Find returns the rendered object of kind and name, or nil.
func (r *Rendered) Find(kind, name string) *unstructured.Unstructured {
	for _, o := range r.Objects {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	return nil
}

// Kinds lists "Kind/name" of every rendered object, in install order.
func (r *Rendered) Kinds() []string {
	var out []string
	for _, o := range r.Objects {
		out = append(out, o.GetKind()+"/"+o.GetName())
	}
	return out
}

// Decode splits a multi-document YAML stream into objects, skipping empty
// documents.
func Decode(stream string) ([]*unstructured.Unstructured, error) {
	dec := utilyaml.NewYAMLOrJSONDecoder(bytes.NewReader([]byte(stream)), 4096)
	var out []*unstructured.Unstructured
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, err
		}
		if len(obj) == 0 {
			continue
		}
		out = append(out, &unstructured.Unstructured{Object: obj})
	}
}

// ChartDir is deploy/chart under the repository root.
func ChartDir(root string) string { return filepath.Join(root, "deploy", "chart") }
