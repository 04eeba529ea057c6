package template

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// benchVars is the kind of data the operator's roles template over: a list
// of HTTPRoute-like objects, half of them annotated, and nested settings.
func benchVars() Vars {
	routes := make([]any, 50)
	for i := range routes {
		meta := value.DictOf("name", fmt.Sprintf("route-%02d", i), "namespace", "default")
		if i%2 == 0 {
			meta.Set("annotations", value.DictOf("cfzt.cloudflare.com/hostname", fmt.Sprintf("app%d.example.com", i)))
		}
		routes[i] = value.DictOf("metadata", meta, "spec", value.DictOf("hostnames", []any{fmt.Sprintf("app%d.example.com", i)}))
	}
	base := value.DictOf("tunnel", value.DictOf("name", "t", "ingress", []any{value.DictOf("service", "http_status:404")}),
		"dns", value.DictOf("ttl", 1, "proxied", true), "tags", []any{"a", "b"})
	over := value.DictOf("tunnel", value.DictOf("id", "abc", "ingress", []any{value.DictOf("hostname", "x", "service", "http://svc")}),
		"dns", value.DictOf("ttl", 300))
	return MapVars{D: value.DictOf("routes", routes, "base", base, "over", over,
		"hostname", "App-42.Example.COM", "state", "present", "zone_id", "", "retries", 3)}
}

func benchRender(b *testing.B, src string) {
	e := New()
	vars := benchVars()
	if _, err := e.Render(src, vars, Options{}); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Render(src, vars, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkSelectattrMap(b *testing.B) {
	benchRender(b, "{{ routes | selectattr('metadata.annotations', 'defined') | map(attribute='metadata.name') | list }}")
}

func BenchmarkCombineRecursive(b *testing.B) {
	benchRender(b, "{{ base | combine(over, recursive=true, list_merge='append') }}")
}

func BenchmarkRegexReplace(b *testing.B) {
	benchRender(b, "{{ hostname | lower | regex_replace('[^a-z0-9-]+', '-') | regex_replace('^-|-$', '') }}")
}

func BenchmarkToJSON(b *testing.B) {
	benchRender(b, "{{ base | combine(over) | to_json }}")
}

func BenchmarkTextTemplate(b *testing.B) {
	benchRender(b, "zone={{ zone_id | default('none', true) }} state={{ state }} tries={{ retries + 1 }}")
}

func BenchmarkConditional(b *testing.B) {
	e := New()
	vars := benchVars()
	expr := "state == 'present' and (zone_id | length == 0) and routes | length > 10"
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.Eval(expr, vars, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkAccumulate1000 renders what a 1,000-item set_fact loop renders:
// one combine into an accumulator per item.
func BenchmarkAccumulate1000(b *testing.B) {
	e := New()
	b.ReportAllocs()
	for i := 0; i < b.N; i++ {
		acc := value.NewDict(0)
		for j := 0; j < 1000; j++ {
			item := value.DictOf("k", fmt.Sprintf("key%d", j), "v", j)
			vars := MapVars{D: value.DictOf("acc", acc, "item", item)}
			r, err := e.Render("{{ acc | combine({item.k: item.v}) }}", vars, Options{})
			if err != nil {
				b.Fatal(err)
			}
			acc = r.(*value.Dict)
		}
	}
}

// BenchmarkExtendsTemplate renders a child template whose parent lays out
// the routes, as a role's vhost or unit templates share a layout.
func BenchmarkExtendsTemplate(b *testing.B) {
	dir := b.TempDir()
	parent := "# {% block title %}routes{% endblock %}\n{% for r in routes %}\n{% block route scoped %}{{ r.metadata.name }}{% endblock %}\n{% endfor %}\n"
	child := "{% extends 'parent.j2' %}\n{% block title %}{{ state }} {{ super() }}{% endblock %}\n{% block route scoped %}- {{ super() }} {{ loop.index }}{% endblock %}\n"
	if err := os.WriteFile(filepath.Join(dir, "parent.j2"), []byte(parent), 0o644); err != nil {
		b.Fatal(err)
	}
	e, vars, path := New(), benchVars(), filepath.Join(dir, "child.j2")
	opt := Options{Search: search.Path{Base: dir}}
	if _, err := e.RenderFile(path, child, vars, opt); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if _, err := e.RenderFile(path, child, vars, opt); err != nil {
			b.Fatal(err)
		}
	}
}
