package k8s

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// definitions builds the task's resource definitions from `definition`,
// `src` or `template`, fills them from kind/api_version/name/namespace and
// expands *List kinds, as kubernetes.core's create_definitions does. With
// `delete_all` and state absent and no object given, it lists every object
// of `kind` in `namespace`.
func (s *service) definitions(req *module.Request) ([]*value.Dict, error) {
	var docs []any
	var err error
	switch {
	case s.p["resource_definition"] != nil && value.Truthy(s.p["resource_definition"]):
		docs, err = fromYAMLValue(s.p["resource_definition"])
	case s.p.str("src") != "":
		docs, err = s.fromSrc(req, s.p.str("src"))
	case s.p["template"] != nil:
		docs, err = s.fromTemplate(req, s.p["template"])
	default:
		docs = []any{value.NewDict(0)}
	}
	if err != nil {
		var f *module.Failure
		if asFailure(err, &f) {
			return nil, f
		}
		var d *diag.Diagnostic
		if errors.As(err, &d) {
			return nil, d // the action plugin's own failure
		}
		return nil, failf("Failed to load resource definition: %s", err)
	}
	var defs []*value.Dict
	for _, doc := range docs {
		d, ok := value.DeepCopy(doc).(*value.Dict)
		if !ok {
			return nil, failf("Failed to load resource definition: '%s' object has no attribute 'setdefault'", value.TypeName(doc))
		}
		s.mergeParams(d)
		if kind := value.Str(field(d, "kind")); field(d, "kind") != nil && strings.HasSuffix(kind, "List") {
			items, _ := field(d, "items").([]any)
			for _, it := range items {
				item, ok := it.(*value.Dict)
				if !ok {
					continue
				}
				if !item.Has("kind") {
					item.Set("kind", strings.TrimSuffix(kind, "List"))
				}
				if !item.Has("apiVersion") {
					item.Set("apiVersion", field(d, "apiVersion"))
				}
				s.mergeParams(item)
				defs = append(defs, item)
			}
			continue
		}
		defs = append(defs, d)
	}
	if s.p.bool("delete_all") && s.p.str("state") == "absent" && s.p["name"] == nil &&
		s.p["resource_definition"] == nil && s.p["src"] == nil {
		return s.retrieveAll()
	}
	return defs, nil
}

// definitionsFailed is the task's failure when definitions fails: the
// action plugin's own refusals stay errors (ansible-core shows them as
// the task's error), the rest are module failures.
func definitionsFailed(err error) (*value.Dict, error) {
	var d *diag.Diagnostic
	if errors.As(err, &d) {
		return nil, d
	}
	return module.FailedResult(err), nil
}

func asFailure(err error, f **module.Failure) bool {
	x, ok := err.(*module.Failure)
	if ok {
		*f = x
	}
	return ok
}

// mergeParams fills a definition from the module arguments; values in the
// definition win.
func (s *service) mergeParams(d *value.Dict) {
	if !d.Has("kind") {
		d.Set("kind", s.p["kind"])
	}
	if !d.Has("apiVersion") {
		d.Set("apiVersion", s.p["api_version"])
	}
	md, ok := d.Get("metadata")
	if !ok {
		md = value.NewDict(2)
		d.Set("metadata", md)
	}
	m, ok := md.(*value.Dict)
	if !ok {
		m = value.NewDict(2)
		d.Set("metadata", m)
	}
	for arg, key := range map[string]string{"namespace": "namespace", "name": "name", "generate_name": "generateName"} {
		if v := s.p.str(arg); v != "" && !m.Has(key) {
			m.Set(key, v)
		}
	}
}

// fromYAMLValue loads a definition given as a dict, a YAML string
// (possibly multi-document) or a list of either; empty documents are
// dropped.
func fromYAMLValue(v any) ([]any, error) {
	var out []any
	add := func(doc any) {
		if value.Truthy(doc) {
			out = append(out, doc)
		}
	}
	switch x := v.(type) {
	case string:
		docs, _, err := value.DecodeYAML("definition", []byte(x))
		if err != nil {
			return nil, err
		}
		for _, d := range docs {
			add(d)
		}
	case []any:
		for _, item := range x {
			if s, ok := item.(string); ok {
				docs, _, err := value.DecodeYAML("definition", []byte(s))
				if err != nil {
					return nil, err
				}
				for _, d := range docs {
					add(d)
				}
				continue
			}
			add(item)
		}
	case *value.Dict:
		add(x)
	default:
		return nil, fmt.Errorf("argument 'resource_definition' is of type %s", "<class '"+value.TypeName(v)+"'>")
	}
	return out, nil
}

// findFile resolves a relative path as the action plugin's
// _find_needle(subdir, path) does, with the candidates it tried.
func findFile(req *module.Request, subdir, p string) (string, []string, bool) {
	return req.Host.FindFile(subdir, p)
}

// isURL tells a remote src, which the module fetches itself.
func isURL(s string) bool {
	return strings.HasPrefix(s, "http://") || strings.HasPrefix(s, "https://") || strings.HasPrefix(s, "ftp://")
}

func (s *service) fromSrc(req *module.Request, src string) ([]any, error) {
	if isURL(src) {
		return nil, failf("Failed to load resource definition: fetching src from a URL is not supported by cfzt-runner")
	}
	data, err := os.ReadFile(filepath.Clean(src))
	if err != nil {
		return nil, err
	}
	docs, _, err := value.DecodeYAML(src, data)
	if err != nil {
		return nil, err
	}
	var out []any
	for _, d := range docs {
		if value.Truthy(d) {
			out = append(out, d)
		}
	}
	return out, nil
}

// fromTemplate renders `template` (a path, a dict with `path` and the
// template options, or a list of those) with the task's variables and
// loads the result as YAML, as kubernetes.core's action plugin does: the
// options are newline_sequence, variable_start_string,
// variable_end_string, block_start_string, block_end_string,
// trim_blocks (default true) and lstrip_blocks (default false). Its
// refusals are the action plugin's own (AnsibleActionFail).
func (s *service) fromTemplate(req *module.Request, tmpl any) ([]any, error) {
	var items []any
	switch x := tmpl.(type) {
	case string, *value.Dict:
		items = []any{x}
	case []any:
		items = x
	default:
		return nil, module.ActionFail(fmt.Sprintf("Error while reading template file - a string or dict for template expected, but got %s instead", pyClass(tmpl)), nil)
	}
	var opts []module.FileTemplate
	var paths []string
	for _, it := range items {
		o := module.FileTemplate{TrimBlocks: true}
		path := ""
		switch x := it.(type) {
		case string:
			path = x
		case *value.Dict:
			if p, _ := x.Get("path"); value.Truthy(p) {
				path = value.Str(p)
			} else {
				return nil, module.ActionFail("Please specify path for template.", nil)
			}
			for key, dst := range map[string]*string{
				"newline_sequence": &o.NewlineSequence, "variable_start_string": &o.VariableStart,
				"variable_end_string": &o.VariableEnd, "block_start_string": &o.BlockStart, "block_end_string": &o.BlockEnd,
			} {
				v, ok := x.Get(key)
				if !ok || v == nil {
					continue
				}
				str, isStr := v.(string)
				if !isStr {
					// ensure_type makes a string of it, but the raw value
					// reaches 2.19's TemplateOverrides, which refuses it.
					msg := fmt.Sprintf("TypeError: TemplateOverrides.%s must be <class 'str'> instead of %s", key, pyClass(v))
					return nil, module.ActionFail(msg, errors.New(msg))
				}
				*dst = str
			}
			for key, dst := range map[string]*bool{"trim_blocks": &o.TrimBlocks, "lstrip_blocks": &o.LStripBlocks} {
				if v, ok := x.Get(key); ok {
					// boolean(v, strict=False): what it does not know is false.
					b, known := argspec.LenientBoolean(v)
					*dst = b && known
				}
			}
		default:
			return nil, module.ActionFail(fmt.Sprintf("Error while reading template file - a string or dict for template expected, but got %s instead", pyClass(it)), nil)
		}
		opts = append(opts, o)
		paths = append(paths, path)
	}
	var out []any
	for i, o := range opts {
		switch o.NewlineSequence {
		case "", "\n", `\n`:
			o.NewlineSequence = ""
		case `\r`, "\r":
			o.NewlineSequence = "\r"
		case `\r\n`, "\r\n":
			o.NewlineSequence = "\r\n"
		default:
			return nil, module.ActionFail("newline_sequence needs to be one of: \n, \r or \r\n", nil)
		}
		path := paths[i]
		found, tried, ok := findFile(req, "templates", path)
		if !ok {
			msg := search.NotFoundMessage(path, tried)
			return nil, module.ActionFail(msg, errors.New(msg))
		}
		// 2.19's templar deprecates the action's reading of its
		// environment attribute, which it does for every template found
		// (shown once a run).
		if h, ok := req.Host.(interface {
			DeprecateHelp(msg, version, help string)
		}); ok {
			h.DeprecateHelp("Direct access to the `environment` attribute is deprecated.", "2.23",
				"Consider using `copy_with_new_env` or passing `overrides` to `template`.")
		}
		rendered, err := req.Host.RenderFile(found, o)
		if err != nil {
			return nil, failf("Failed to render template %s: %s", path, err)
		}
		docs, err := fromYAMLValue(rendered)
		if err != nil {
			return nil, err
		}
		out = append(out, docs...)
	}
	return out, nil
}

// pyClass is how Python's type() prints the type of v.
func pyClass(v any) string {
	return "<class '" + value.TypeName(v) + "'>"
}

// retrieveAll lists every object of kind in namespace for delete_all.
func (s *service) retrieveAll() ([]*value.Dict, error) {
	if s.p["kind"] == nil {
		return nil, failf("'kind' option is required to specify the resource type.")
	}
	res, err := s.c.findResource(s.p.str("kind"), s.p.str("api_version"))
	if err != nil || res == nil {
		return nil, failf("Failed to find exact match for %s.%s by [kind, name, singularName, shortNames]", s.p.str("api_version"), s.p.str("kind"))
	}
	obj, err := s.c.get(s.ctx, res, query{namespace: s.p.str("namespace"), labelSel: s.p.strs("label_selectors")})
	if err != nil {
		if errCode(err) == 405 {
			return nil, nil
		}
		return nil, failWith("Failed to retrieve requested object", err)
	}
	d, _ := obj.(*value.Dict)
	if d == nil {
		return nil, nil
	}
	fillListItems(d)
	var out []*value.Dict
	items, _ := field(d, "items").([]any)
	for _, it := range items {
		if item, ok := it.(*value.Dict); ok {
			out = append(out, item)
		}
	}
	return out, nil
}
