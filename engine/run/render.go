package run

import (
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// LoaderRenderer renders the templates the playbook loader meets (role
// names, import_playbook paths) with eng, over variable layers that keep
// their templates until used, as a task's variables do.
func LoaderRenderer(eng *template.Engine, mergeHashes bool) playbook.Renderer {
	return func(tmpl string, layers []*value.Dict) (any, error) {
		s := &scope{merge: mergeHashes}
		for _, d := range layers {
			s.add(d, true)
		}
		return eng.Render(tmpl, s, template.Options{})
	}
}
