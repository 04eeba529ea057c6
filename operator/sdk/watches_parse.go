package sdk

import (
	"fmt"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// parser turns the YAML tree of watches.yaml into Watches, keeping the
// first error (with its line) and the unknown keys as warnings.
type parser struct {
	file     string
	opts     LoadOptions
	err      error
	warnings []string
}

func (p *parser) fail(n *yaml.Node, format string, a ...any) {
	if p.err == nil {
		p.err = &LoadError{Pos: value.NodePos(p.file, n), Msg: fmt.Sprintf(format, a...)}
	}
}

func (p *parser) warn(n *yaml.Node, format string, a ...any) {
	p.warnings = append(p.warnings, fmt.Sprintf("%s:%d: %s", p.file, n.Line, fmt.Sprintf(format, a...)))
}

func (p *parser) document(doc *yaml.Node) []*Watch {
	if len(doc.Content) == 0 {
		return nil
	}
	root := doc.Content[0]
	if root.Kind == yaml.ScalarNode && root.Tag == "!!null" {
		return nil
	}
	if root.Kind != yaml.SequenceNode {
		p.fail(root, "watches file must be a list of watches")
		return nil
	}
	var out []*Watch
	for _, n := range root.Content {
		w := p.watch(n)
		if p.err != nil {
			return nil
		}
		out = append(out, w)
	}
	return out
}

// watchKeys maps every watches.yaml key (lower-cased) to its setter.
var watchKeys = map[string]func(p *parser, w *Watch, v *yaml.Node){
	"group":                       func(p *parser, w *Watch, v *yaml.Node) { w.GVK.Group = p.str(v) },
	"version":                     func(p *parser, w *Watch, v *yaml.Node) { w.GVK.Version = p.str(v) },
	"kind":                        func(p *parser, w *Watch, v *yaml.Node) { w.GVK.Kind = p.str(v) },
	"playbook":                    func(p *parser, w *Watch, v *yaml.Node) { w.Playbook = p.str(v) },
	"role":                        func(p *parser, w *Watch, v *yaml.Node) { w.Role = p.str(v) },
	"vars":                        func(p *parser, w *Watch, v *yaml.Node) { w.Vars = p.dict(v) },
	"maxrunnerartifacts":          func(p *parser, w *Watch, v *yaml.Node) { w.MaxRunnerArtifacts = p.int(v) },
	"reconcileperiod":             func(p *parser, w *Watch, v *yaml.Node) { w.ReconcilePeriod = p.duration(v) },
	"managestatus":                func(p *parser, w *Watch, v *yaml.Node) { w.ManageStatus = p.bool(v) },
	"watchdependentresources":     func(p *parser, w *Watch, v *yaml.Node) { w.WatchDependentResources = p.bool(v) },
	"watchclusterscopedresources": func(p *parser, w *Watch, v *yaml.Node) { w.WatchClusterScopedResources = p.bool(v) },
	"snakecaseparameters":         func(p *parser, w *Watch, v *yaml.Node) { w.SnakeCaseParameters = p.bool(v) },
	"watchannotationschanges":     func(p *parser, w *Watch, v *yaml.Node) { w.WatchAnnotationsChanges = p.bool(v) },
	"markunsafe":                  func(p *parser, w *Watch, v *yaml.Node) { w.MarkUnsafe = p.bool(v) },
	"selector":                    func(p *parser, w *Watch, v *yaml.Node) { w.Selector = p.selector(v) },
	"blacklist":                   func(p *parser, w *Watch, v *yaml.Node) { w.Blacklist = p.gvkList(v) },
	"finalizer":                   func(p *parser, w *Watch, v *yaml.Node) { w.Finalizer = p.finalizer(v) },
}

// defaultWatch has ansible-operator's defaults: status managed, dependent
// resources watched, parameters snake_cased, 20 runner artifacts.
func (p *parser) defaultWatch(n *yaml.Node) *Watch {
	return &Watch{
		ManageStatus: true, WatchDependentResources: true, SnakeCaseParameters: true,
		MaxRunnerArtifacts: 20, Pos: value.NodePos(p.file, n),
	}
}

func (p *parser) watch(n *yaml.Node) *Watch {
	w := p.defaultWatch(n)
	if n.Kind != yaml.MappingNode {
		p.fail(n, "a watch must be a mapping")
		return w
	}
	p.each(n, func(key string, k, v *yaml.Node) {
		set, ok := watchKeys[strings.ToLower(key)]
		if !ok {
			p.warn(k, "unknown key %q in watch (ignored)", key)
			return
		}
		set(p, w, v)
	})
	if p.err != nil {
		return w
	}
	if w.MaxRunnerArtifacts == 0 {
		w.MaxRunnerArtifacts = 20
	}
	switch {
	case w.GVK.Version == "":
		p.fail(n, "invalid GVK: %s: version must not be empty", w.GVK)
	case w.GVK.Kind == "":
		p.fail(n, "invalid GVK: %s: kind must not be empty", w.GVK)
	}
	w.MaxConcurrentReconciles = p.perKindInt("MAX_CONCURRENT_RECONCILES", "WORKER", w.GVK, p.opts.MaxConcurrentReconciles, 1, 1<<20)
	w.AnsibleVerbosity = p.perKindInt("ANSIBLE_VERBOSITY", "", w.GVK, p.opts.AnsibleVerbosity, 0, 7)
	dir, env := p.opts.Dir, p.opts.Getenv
	w.Playbook = resolvePlaybook(dir, w.Playbook)
	w.Role = resolveRole(dir, w.Role, env)
	if f := w.Finalizer; f != nil {
		f.Playbook = resolvePlaybook(dir, f.Playbook)
		f.Role = resolveRole(dir, f.Role, env)
	}
	return w
}

// perKindInt reads NAME_<KIND>_<GROUP> (or the older OLD_<KIND>_<GROUP>),
// falling back to def when unset, not a number or out of [lo, hi].
func (p *parser) perKindInt(name, old string, gvk schema.GroupVersionKind, def, lo, hi int) int {
	s, ok := p.opts.Getenv(envName(name, gvk))
	if !ok && old != "" {
		s, ok = p.opts.Getenv(envName(old, gvk))
	}
	if !ok {
		return def
	}
	n, err := strconv.Atoi(strings.TrimSpace(s))
	if err != nil || n < lo || n > hi {
		return def
	}
	return n
}

// each calls fn for every key of a mapping node.
func (p *parser) each(n *yaml.Node, fn func(key string, k, v *yaml.Node)) {
	for i := 0; i+1 < len(n.Content) && p.err == nil; i += 2 {
		fn(n.Content[i].Value, n.Content[i], n.Content[i+1])
	}
}

func (p *parser) str(v *yaml.Node) string {
	if v.Kind != yaml.ScalarNode {
		p.fail(v, "expected a string")
		return ""
	}
	if v.Tag == "!!null" {
		return ""
	}
	return v.Value
}

func (p *parser) int(v *yaml.Node) int {
	n, err := strconv.Atoi(p.str(v))
	if err != nil && p.err == nil {
		p.fail(v, "expected an integer, got %q", v.Value)
	}
	return n
}

// bool accepts YAML 1.1 booleans (yes/no/on/off too), as
// ansible-operator's YAML decoder does.
func (p *parser) bool(v *yaml.Node) bool {
	switch strings.ToLower(p.str(v)) {
	case "true", "yes", "y", "on":
		return true
	case "false", "no", "n", "off":
		return false
	}
	p.fail(v, "expected a boolean, got %q", v.Value)
	return false
}

func (p *parser) duration(v *yaml.Node) time.Duration {
	s := p.str(v)
	d, err := time.ParseDuration(s)
	if err != nil && p.err == nil {
		p.fail(v, "invalid reconcilePeriod %q: %v", s, err)
	}
	return d
}

func (p *parser) dict(v *yaml.Node) *value.Dict {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	x, err := value.FromYAML(p.file, v)
	d, ok := x.(*value.Dict)
	if err != nil || !ok {
		p.fail(v, "expected a mapping of variables")
		return nil
	}
	return d
}

func (p *parser) gvkList(v *yaml.Node) []schema.GroupVersionKind {
	if v.Kind != yaml.SequenceNode {
		p.fail(v, "expected a list of group/version/kind")
		return nil
	}
	var out []schema.GroupVersionKind
	for _, n := range v.Content {
		var gvk schema.GroupVersionKind
		if n.Kind != yaml.MappingNode {
			p.fail(n, "expected a mapping with group, version and kind")
			return nil
		}
		p.each(n, func(key string, k, v *yaml.Node) {
			switch strings.ToLower(key) {
			case "group":
				gvk.Group = p.str(v)
			case "version":
				gvk.Version = p.str(v)
			case "kind":
				gvk.Kind = p.str(v)
			default:
				p.warn(k, "unknown key %q in blacklist entry (ignored)", key)
			}
		})
		out = append(out, gvk)
	}
	return out
}

func (p *parser) finalizer(v *yaml.Node) *Finalizer {
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.MappingNode {
		p.fail(v, "finalizer must be a mapping")
		return nil
	}
	f := &Finalizer{}
	p.each(v, func(key string, k, v *yaml.Node) {
		switch strings.ToLower(key) {
		case "name":
			f.Name = p.str(v)
		case "playbook":
			f.Playbook = p.str(v)
		case "role":
			f.Role = p.str(v)
		case "vars":
			f.Vars = p.dict(v)
		default:
			p.warn(k, "unknown key %q in finalizer (ignored)", key)
		}
	})
	return f
}

// selector reads a label selector (matchLabels, matchExpressions).
func (p *parser) selector(v *yaml.Node) metav1.LabelSelector {
	var sel metav1.LabelSelector
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return sel
	}
	if v.Kind != yaml.MappingNode {
		p.fail(v, "selector must be a mapping")
		return sel
	}
	p.each(v, func(key string, k, v *yaml.Node) {
		switch strings.ToLower(key) {
		case "matchlabels":
			d := p.dict(v)
			if d == nil {
				return
			}
			sel.MatchLabels = map[string]string{}
			d.Each(func(k string, x any) bool { sel.MatchLabels[k] = value.Str(x); return true })
		case "matchexpressions":
			sel.MatchExpressions = p.requirements(v)
		default:
			p.warn(k, "unknown key %q in selector (ignored)", key)
		}
	})
	return sel
}

func (p *parser) requirements(v *yaml.Node) []metav1.LabelSelectorRequirement {
	if v.Kind != yaml.SequenceNode {
		p.fail(v, "matchExpressions must be a list")
		return nil
	}
	var out []metav1.LabelSelectorRequirement
	for _, n := range v.Content {
		var r metav1.LabelSelectorRequirement
		if n.Kind != yaml.MappingNode {
			p.fail(n, "a match expression must be a mapping")
			return nil
		}
		p.each(n, func(key string, k, v *yaml.Node) {
			switch strings.ToLower(key) {
			case "key":
				r.Key = p.str(v)
			case "operator":
				r.Operator = metav1.LabelSelectorOperator(p.str(v))
			case "values":
				if v.Kind != yaml.SequenceNode {
					p.fail(v, "values must be a list")
					return
				}
				for _, s := range v.Content {
					r.Values = append(r.Values, p.str(s))
				}
			default:
				p.warn(k, "unknown key %q in match expression (ignored)", key)
			}
		})
		out = append(out, r)
	}
	return out
}
