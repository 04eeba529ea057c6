package k8s

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/module"
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

// fromTemplate renders `template` (a path, a dict with `path`, or a list
// of those) with the task's variables and loads the result as YAML.
func (s *service) fromTemplate(req *module.Request, tmpl any) ([]any, error) {
	items, ok := tmpl.([]any)
	if !ok {
		items = []any{tmpl}
	}
	var out []any
	for _, it := range items {
		path := ""
		switch x := it.(type) {
		case string:
			path = x
		case *value.Dict:
			path = value.Str(field(x, "path"))
		}
		if path == "" {
			return nil, failf("template must be a path or a dict with a path")
		}
		found, tried, ok := findFile(req, "templates", path)
		if !ok {
			return nil, failf("%s", search.NotFoundMessage(path, tried))
		}
		rendered, err := req.Host.RenderFile(found, module.FileTemplate{TrimBlocks: true})
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
