package k8s

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// RegisterLookups registers kubernetes.core's k8s lookup on eng. Clients
// are kept in shared (one per connection), like the modules' own.
func RegisterLookups(eng *template.Engine, shared *module.Shared) {
	eng.RegisterLookup("k8s", func(c *template.Ctx, terms []any, a *template.Args) ([]any, error) {
		return lookupK8s(c, shared, a)
	})
}

// lookupK8s is kubernetes.core's k8s lookup: cluster_info=version or
// api_groups, else the object named by resource_name (as a one-element
// list) or the items matching kind, api_version (default v1), namespace
// and the selectors; an object not found is an empty list.
func lookupK8s(c *template.Ctx, shared *module.Shared, a *template.Args) ([]any, error) {
	kw := a.Kw
	if kw == nil {
		kw = value.NewDict(0)
	}
	getenv := c.Engine().Getenv
	cl, err := ClientsFor(shared, getenv, kw)
	if err != nil {
		return nil, template.Errorf("%s", err.Error())
	}
	str := func(k, def string) string {
		if v, ok := kw.Get(k); ok && v != nil {
			return value.Str(v)
		}
		return def
	}
	ctx := context.Background()
	switch str("cluster_info", "") {
	case "api_groups":
		// The Python discovery's api_groups: the keys of its "apis"
		// prefix, the core group's "" first, then /apis in server order.
		snap, err := cl.Discovery.Current()
		if err != nil {
			return nil, template.Errorf("%s", err.Error())
		}
		groups := snap.Groups()
		list := []any{""}
		for _, g := range groups {
			if g != "" {
				list = append(list, g)
			}
		}
		return []any{list}, nil
	case "version":
		// DynamicClient.version: the apiserver's /version under
		// "kubernetes", as k8s_cluster_info's version.server.
		v, err := serverVersion(ctx, cl)
		if err != nil {
			return nil, template.Errorf("%s", err.Error())
		}
		return []any{v}, nil
	}
	kind, apiVersion, name, ns := str("kind", ""), str("api_version", "v1"), str("resource_name", ""), str("namespace", "")
	if src := str("src", ""); src != "" {
		// create_definitions(src=...): the first document of the file
		// (relative to the working directory) names the object, its
		// missing fields included.
		first, err := firstDefinition(src)
		if err != nil {
			return nil, err
		}
		if first != nil {
			kind, name, ns = value.Str(field(first, "kind")), strOr(field(first, "metadata", "name"), ""), strOr(field(first, "metadata", "namespace"), "")
			apiVersion = strOr(field(first, "apiVersion"), "v1")
			if field(first, "kind") == nil {
				kind = ""
			}
		}
	}
	if def, ok := kw.Get("resource_definition"); ok {
		if d, ok := def.(*value.Dict); ok {
			kind, apiVersion = strOr(field(d, "kind"), kind), strOr(field(d, "apiVersion"), apiVersion)
			name, ns = strOr(field(d, "metadata", "name"), name), strOr(field(d, "metadata", "namespace"), ns)
		}
	}
	if kind == "" {
		return nil, template.Errorf("Error: no Kind specified. Use the 'kind' parameter, or provide an object YAML configuration using the 'resource_definition' parameter.")
	}
	res, err := cl.findResource(kind, apiVersion)
	if err != nil || res == nil {
		return nil, template.Errorf("Failed to find exact match for %s.%s by [kind, name, singularName, shortNames]", apiVersion, kind)
	}
	q := query{name: name, namespace: ns}
	if s := str("label_selector", ""); s != "" {
		q.labelSel = []string{s}
	}
	if s := str("field_selector", ""); s != "" {
		q.fieldSel = []string{s}
	}
	obj, err := cl.get(ctx, res, q)
	if err != nil {
		return nil, template.Errorf("%s", err.Error())
	}
	if obj == nil {
		return []any{}, nil
	}
	if name != "" {
		return []any{obj}, nil
	}
	items, _ := field(obj, "items").([]any)
	return items, nil
}

// firstDefinition reads the resource definitions of a file as
// kubernetes.core's from_file does (every YAML document, empty ones
// dropped) and returns the first, nil when there is none.
func firstDefinition(path string) (*value.Dict, error) {
	data, err := os.ReadFile(filepath.Clean(path))
	if err != nil {
		var pe *os.PathError
		msg := err.Error()
		if errors.As(err, &pe) && errors.Is(err, os.ErrNotExist) {
			msg = fmt.Sprintf("[Errno 2] No such file or directory: '%s'", path)
		}
		return nil, template.Errorf("An unhandled exception occurred while running the lookup plugin 'k8s'. Error was a <class 'FileNotFoundError'>, original message: %s", msg)
	}
	docs, _, err := value.DecodeYAML(path, data)
	if err != nil {
		return nil, template.Errorf("Error loading resource definitions from %s: %s", path, err)
	}
	for _, d := range docs {
		if d == nil {
			continue
		}
		if m, ok := d.(*value.Dict); ok {
			return m, nil
		}
		return nil, template.Errorf("Error loading resource definitions from %s: a definition must be a mapping", path)
	}
	return nil, nil
}
