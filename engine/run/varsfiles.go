package run

import (
	"errors"
	"fmt"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// checkVarsFiles rejects vars_files entries that are neither strings nor
// lists of strings.
func (r *Runner) checkVarsFiles(play *playbook.Play) error {
	for _, vf := range play.VarsFiles {
		switch x := vf.(type) {
		case string:
		case []any:
			for _, e := range x {
				if _, ok := e.(string); !ok {
					return r.varsFilesErr(play, e)
				}
			}
		default:
			return r.varsFilesErr(play, vf)
		}
	}
	return nil
}

func (r *Runner) varsFilesErr(play *playbook.Play, v any) error {
	p := play.VarsFilesPos
	return &diag.Diagnostic{Summary: fmt.Sprintf("Invalid `vars_files` value of type '%s'.", value.TypeName(v)), Origin: &p,
		Help: "A `vars_files` value should either be a string or list of strings.", Code: diag.ExitParse}
}

// hostlessVarsFiles loads the vars_files once without a host, as
// ansible-core does before a play starts: it warns about the entries
// that need a host's variables, and a file that does not load ends the
// run (false).
func (r *Runner) hostlessVarsFiles(ps *playState) (*value.Dict, bool) {
	d, err := r.resolveVarsFiles(ps, "")
	if err != nil {
		r.fatal(err)
		return nil, false
	}
	return d, true
}

// loadVarsFiles loads the play's vars_files for one host.
func (r *Runner) loadVarsFiles(ps *playState, host string) error {
	d, err := r.resolveVarsFiles(ps, host)
	if err != nil {
		return err
	}
	ps.varsFiles[host] = d
	return nil
}

// resolveVarsFiles loads the vars_files of the play for host ("" for
// none): for each entry, the first of its names whose file exists, names
// templated with the variables known so far. An entry whose name uses an
// undefined variable is skipped with a warning; once the host's facts
// are gathered it is an error instead.
func (r *Runner) resolveVarsFiles(ps *playState, host string) (*value.Dict, error) {
	play := ps.play
	out := value.NewDict(0)
	for i, entry := range play.VarsFiles {
		names, isList := entry.([]any)
		if !isList {
			names = []any{entry}
		}
		for j, n := range names {
			name := value.Str(n)
			if template.HasMarkers(name) {
				v, err := r.Engine.Render(name, r.varsFilesScope(ps, host, out), template.Options{})
				if err != nil {
					if !template.IsUndefined(err) {
						return nil, err
					}
					if err := r.undefinedVarsFile(ps, host, i, j, entry, err); err != nil {
						return nil, err
					}
					break
				}
				name = value.Str(v)
			}
			path := playbook.FindVarsFile(name, r.playDir(ps), ps.pb.Dir)
			if path == "" {
				continue
			}
			d, err := r.Loader.LoadVarsFileData(path, r.Opts.MergeHashes)
			if err != nil {
				return nil, err
			}
			out = playbook.CombineVars(out, d, r.Opts.MergeHashes)
			break
		}
	}
	return out, nil
}

// undefinedVarsFile handles a vars_files entry whose name uses an
// undefined variable: a warning, or an error once facts were gathered.
func (r *Runner) undefinedVarsFile(ps *playState, host string, item, name int, entry any, cause error) error {
	itemPos := ps.play.VarsFilesItemPos[item]
	if host != "" {
		if r.host(host).cache.setupRan() {
			namePos := ps.play.VarsFilesNamePos[item][name]
			msg := diag.Messages(cause)
			var ue *template.UndefinedError
			if errors.As(cause, &ue) {
				msg = []string{ue.Msg}
			}
			return &diag.Diagnostic{Origin: &itemPos, Cause: &diag.Diagnostic{Summary: diag.JoinMessages(msg), Origin: &namePos}, Summary: fmt.Sprintf("an undefined variable was found when attempting to template the vars_files item '%s'", value.Str(entry))}
		}
	}
	r.warn(&diag.Diagnostic{Severity: diag.Warning, Summary: "skipping vars_files item due to an undefined variable", Origin: &itemPos})
	return nil
}

// varsFilesScope is what vars_files names are templated with: the
// variables below vars_files in precedence (with the files loaded so
// far), extra vars and the magic variables.
func (r *Runner) varsFilesScope(ps *playState, host string, loaded *value.Dict) *scope {
	s := &scope{static: &r.static, merge: r.Opts.MergeHashes}
	s.add(ps.roleDefs, true)
	if host != "" {
		s.hostvars = r.hostVars(ps)
		s.hostOrigin = r.hostVarOrigin
		s.add(r.Inventory.HostVars(host), true)
		s.add(r.factVars(r.host(host)), false)
	}
	s.add(ps.vars, true)
	s.add(loaded, true)
	s.add(r.Opts.ExtraVars, true)
	if host != "" {
		s.add(r.magicVars(ps, host), false)
	} else {
		s.add(value.DictOf("playbook_dir", r.playDir(ps), "ansible_check_mode", r.Opts.Check, "omit", value.Omit{}), false)
	}
	return s
}

// reloadVarsFiles loads the vars_files again for the hosts whose facts
// were just gathered, whose names may use them. A failure ends the run,
// as an error in ansible-core's variable manager does.
func (r *Runner) reloadVarsFiles(ps *playState) bool {
	if len(ps.play.VarsFiles) == 0 {
		return true
	}
	for _, h := range ps.hosts {
		if !r.host(h).cache.setupRan() {
			continue
		}
		if err := r.loadVarsFiles(ps, h); err != nil {
			r.fatal(err)
			return false
		}
	}
	return true
}
