package operator

import (
	"sync"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ReadRecorder records what k8s_info reads during a cycle: the rendered
// api_version, kind and namespace of every call, loop items included. It
// complements ScanKinds with what only the run knows (kinds taken from
// loop items or variables, templated namespaces).
type ReadRecorder struct {
	mu   sync.Mutex
	seen map[Target]bool
}

// NewReadRecorder returns an empty recorder.
func NewReadRecorder() *ReadRecorder { return &ReadRecorder{seen: map[Target]bool{}} }

// Wrap returns m recording each call's target before running it.
func (r *ReadRecorder) Wrap(m module.Module) module.Module {
	return module.Func(func(req *module.Request) (*value.Dict, error) {
		if t, ok := readTarget(req.Args); ok {
			r.mu.Lock()
			r.seen[t] = true
			r.mu.Unlock()
		}
		return m.Run(req)
	})
}

// Take returns what was recorded since the last Take.
func (r *ReadRecorder) Take() []Target {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := sortedTargets(r.seen)
	r.seen = map[Target]bool{}
	return out
}

// readTarget reads k8s_info's rendered arguments (api_version defaults to
// v1; no namespace means all namespaces; name, when given, is kept).
func readTarget(args *value.Dict) (Target, bool) {
	str := func(names ...string) string {
		if v, ok := arg(args, names...); ok && v != nil {
			if s, ok := v.(string); ok {
				return s
			}
		}
		return ""
	}
	kind := str("kind")
	if kind == "" {
		return Target{}, false
	}
	apiVersion := str("api_version", "api", "version")
	if apiVersion == "" {
		apiVersion = "v1"
	}
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return Target{}, false
	}
	return Target{GVK: gv.WithKind(kind), Namespace: str("namespace"), Name: str("name")}, true
}
