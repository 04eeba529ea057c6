package playbook

import (
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/search"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
	"gopkg.in/yaml.v3"
)

// LoadVarsFile loads a YAML mapping of variables ("" is no variables).
func (l *Loader) LoadVarsFile(path string) (*value.Dict, error) {
	if path == "" {
		return value.NewDict(0), nil
	}
	root, err := l.readYAML(path)
	if err != nil {
		return nil, err
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		// A file of comments only (a scaffolded vars/main.yml) is no vars.
		return value.NewDict(0), nil
	}
	v, err := value.FromYAML(path, root)
	if err != nil {
		return nil, err
	}
	d, ok := v.(*value.Dict)
	if !ok {
		return nil, parseErr(value.NodePos(path, root), "Vars in %s must be specified as a dictionary", path)
	}
	RecordOrigins(path, root, d)
	return d, nil
}

// LoadVarsFileData loads a vars_files file: a mapping of variables, or a
// list of mappings layered in order (merged under merge).
func (l *Loader) LoadVarsFileData(path string, merge bool) (*value.Dict, error) {
	root, err := l.readYAML(path)
	if vault.IsVaultError(err) {
		return nil, &diag.Diagnostic{Summary: "Invalid vars_files file '" + path + "'.", Cause: diag.Of(err)}
	}
	if err != nil || root == nil {
		return value.NewDict(0), err
	}
	items := []*yaml.Node{root}
	if root.Kind == yaml.SequenceNode {
		items = root.Content
	}
	out := value.NewDict(0)
	for _, it := range items {
		v, err := value.FromYAML(path, it)
		if err != nil {
			return nil, err
		}
		d, ok := v.(*value.Dict)
		if !ok {
			return nil, &diag.Diagnostic{Code: diag.ExitParse, Origin: diag.At(value.NodePos(path, it)), Summary: "Invalid variable file contents.", Help: "Variable files must contain either a dictionary of variables, or a list of dictionaries."}
		}
		RecordOrigins(path, it, d)
		out = CombineVars(out, d, merge)
	}
	return out, nil
}

// FindVarsFile finds a vars_files entry the way ansible-core searches a
// play's files (engine/search): under vars/ then directly in the play's
// directory, then in the playbook's. It returns "" when no file exists.
func FindVarsFile(name, playDir, playbookDir string) string {
	found, _, ok := search.Path{Dirs: []string{playDir}, Base: playbookDir}.Find("vars", name)
	if !ok {
		return ""
	}
	return found
}

// loadTimeLayers are the variables templates see while a play loads
// (role names, import_role names), lowest first: the public roles'
// defaults, play vars, the vars_files that need no host to name, the
// public roles' vars, extra vars and the playbook directory.
func (l *Loader) loadTimeLayers() []*value.Dict {
	var layers []*value.Dict
	if p := l.play; p != nil {
		roles := p.LoadedRoles()
		for _, ri := range roles {
			if ri.Public {
				layers = append(layers, ri.DefaultLayers()...)
			}
		}
		layers = append(layers, p.Vars)
		layers = append(layers, l.hostlessVarsFiles(p, layers)...)
		for _, ri := range roles {
			if ri.Public {
				layers = append(layers, ri.ExportLayers()...)
			}
		}
	}
	return append(layers, l.ExtraVars, value.DictOf("playbook_dir", l.playbookDir))
}

// hostlessVarsFiles loads the vars_files entries whose names template
// without a host; the others are left to the run, which warns about
// them.
func (l *Loader) hostlessVarsFiles(p *Play, below []*value.Dict) []*value.Dict {
	var out []*value.Dict
	for _, entry := range p.VarsFiles {
		names, ok := entry.([]any)
		if !ok {
			names = []any{entry}
		}
		for _, n := range names {
			name, isStr := n.(string)
			if !isStr {
				break
			}
			if strings.Contains(name, "{{") || strings.Contains(name, "{%") {
				layers := append(append(append([]*value.Dict{}, below...), out...), l.ExtraVars)
				v, err := l.Render(name, layers)
				if err != nil {
					break
				}
				name = value.Str(v)
			}
			path := FindVarsFile(name, p.Dir, l.playbookDir)
			if path == "" {
				continue
			}
			if d, err := l.LoadVarsFileData(path, l.MergeHashes); err == nil {
				out = append(out, d)
			}
			break
		}
	}
	return out
}
