package template

import (
	"os"
	"path/filepath"
	"strconv"
	"testing"

	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// benchTemplate is bench/scenarios/templates/site.conf.j2, the template of
// make bench's scenario 7.
const benchTemplate = `# {{ ansible_managed }}
server {
  listen {{ 8000 + item }};
  server_name site-{{ item }}.example.com;
{% for u in upstreams %}
  upstream {{ u }}:{{ 8000 + item }};
{% endfor %}
}
`

func benchHost(b *testing.B) (*moduletest.Host, string) {
	dir := b.TempDir()
	b.Setenv("HOME", dir)
	b.Setenv("ANSIBLE_LOCAL_TEMP", filepath.Join(dir, ".ansible", "tmp"))
	if err := os.MkdirAll(filepath.Join(dir, "templates"), 0o755); err != nil {
		b.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "templates", "site.conf.j2"), []byte(benchTemplate), 0o644); err != nil {
		b.Fatal(err)
	}
	h := moduletest.NewHost(value.DictOf("upstreams", []any{"10.0.0.1", "10.0.0.2", "10.0.0.3"}))
	h.Dirs = []string{dir}
	return h, dir
}

// BenchmarkTemplateNewFiles renders the scenario's template to a new file
// per iteration: the search, the render, the temporary file and the
// copy's atomic write, as each item of scenario 7 does.
func BenchmarkTemplateNewFiles(b *testing.B) {
	h, dir := benchHost(b)
	i := 0
	for b.Loop() {
		h.Vars.Set("item", i)
		res, err := Run(h.Request("template", "src", "site.conf.j2", "dest", filepath.Join(dir, "site-"+strconv.Itoa(i)+".conf")))
		if err != nil || res.Default("changed", nil) != true {
			b.Fatal(err, res)
		}
		i++
	}
}

// BenchmarkTemplateUnchanged renders to a file that already has the
// content: the idempotent path (render, checksum, compare).
func BenchmarkTemplateUnchanged(b *testing.B) {
	h, dir := benchHost(b)
	h.Vars.Set("item", 1)
	dest := filepath.Join(dir, "site.conf")
	if _, err := Run(h.Request("template", "src", "site.conf.j2", "dest", dest)); err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		res, err := Run(h.Request("template", "src", "site.conf.j2", "dest", dest))
		if err != nil || res.Default("changed", nil) != false {
			b.Fatal(err, res)
		}
	}
}
