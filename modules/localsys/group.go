package localsys

import (
	"strconv"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/argspec"
	"github.com/cfzt/cfzt-runner/engine/value"
)

// groupSpec is the group module's argument_spec.
var groupSpec = &argspec.Spec{
	Options: []argspec.Option{
		{Name: "state", Type: argspec.Str, Default: "present", Choices: []any{"absent", "present"}},
		{Name: "name", Type: argspec.Str, Required: true},
		{Name: "force", Type: argspec.Bool, Default: false},
		{Name: "gid", Type: argspec.Int},
		{Name: "system", Type: argspec.Bool, Default: false},
		{Name: "local", Type: argspec.Bool, Default: false},
		{Name: "non_unique", Type: argspec.Bool, Default: false},
		{Name: "gid_min", Type: argspec.Int},
		{Name: "gid_max", Type: argspec.Int},
	},
	Rules: argspec.Rules{RequiredIf: []argspec.RequiredIf{{Key: "non_unique", Value: true, Requires: []string{"gid"}}}},
}

// groupRun is one run of the group module on Linux.
type groupRun struct {
	req   *module.Request
	p     argspec.Params
	name  string
	local bool
}

// Group is ansible.builtin.group on Linux: groupadd, groupmod and
// groupdel (lgroupadd... with local), /etc/group read as grp does.
func Group(req *module.Request) (*value.Dict, error) {
	p, failed := validate(req, groupSpec)
	if failed != nil {
		return failed, nil
	}
	if p.Bool("force") && p.Bool("local") {
		return module.Failed("force is not a valid option for local, force=True and local=True are mutually exclusive"), nil
	}
	g := &groupRun{req: req, p: p, name: p.Str("name"), local: p.Bool("local")}
	if g.local {
		for _, k := range []string{"gid_min", "gid_max"} {
			if p.IsSet(k) {
				return module.Failed("'" + k + "' can not be used with 'local'"), nil
			}
		}
	}
	res, err := g.run()
	if f, ok := err.(*module.Failure); ok {
		return module.FailedResult(f), nil
	}
	return res, err
}

func (g *groupRun) run() (*value.Dict, error) {
	res := value.DictOf("name", g.name, "state", g.p.Str("state"))
	exists, err := g.exists()
	if err != nil {
		return nil, err
	}
	var out cmdOutcome
	if g.p.Str("state") == "absent" {
		if exists {
			if g.req.Check {
				return value.DictOf("changed", true), nil
			}
			if out, err = g.del(); err != nil {
				return nil, err
			}
		}
	} else {
		if !exists {
			if g.req.Check {
				return value.DictOf("changed", true), nil
			}
			out, err = g.add()
		} else {
			out, err = g.mod()
		}
		if err != nil {
			return nil, err
		}
	}
	if out.ran && out.rc != 0 {
		return nil, module.Fail(out.stderr, "name", g.name)
	}
	out.addTo(res)
	if ok, _ := g.exists(); ok {
		info, _ := groupByName(g.name)
		res.Set("system", g.p.Bool("system"))
		res.Set("gid", info.gid)
	}
	return res, nil
}

// exists is group_exists: /etc/group as grp reads it, or the file's own
// lines with local.
func (g *groupRun) exists() (bool, error) {
	if g.local {
		ok, err := localEntryExists(groupFile, g.name)
		if err != nil {
			return false, module.Fail("'local: true' specified but unable to find local group file " + groupFile + " to parse.")
		}
		return ok, nil
	}
	_, ok := groupByName(g.name)
	return ok, nil
}

// command returns the path of the shadow-utils program, or its libuser
// counterpart with local.
func (g *groupRun) command(name string) (string, error) {
	if g.local {
		name = "l" + name
	}
	p, err := binPath(g.req, name)
	if err != nil {
		return "", module.Fail(err.Error())
	}
	return p, nil
}

func (g *groupRun) del() (cmdOutcome, error) {
	bin, err := g.command("groupdel")
	if err != nil {
		return cmdOutcome{}, err
	}
	argv := []string{bin}
	if g.p.Bool("force") {
		argv = append(argv, "-f")
	}
	return execute(g.req, append(argv, g.name), false)
}

// checkLocalGID is _local_check_gid_exists: with local a GID taken by
// another group is an error before libuser runs.
func (g *groupRun) checkLocalGID() error {
	gid := g.p.Int("gid")
	if !g.local || gid == 0 {
		return nil
	}
	for _, e := range allGroups() {
		if e.gid == gid && e.name != g.name {
			return module.Fail("GID '" + strconv.Itoa(gid) + "' already exists with group '" + e.name + "'")
		}
	}
	return nil
}

func (g *groupRun) add() (cmdOutcome, error) {
	if err := g.checkLocalGID(); err != nil {
		return cmdOutcome{}, err
	}
	bin, err := g.command("groupadd")
	if err != nil {
		return cmdOutcome{}, err
	}
	argv := []string{bin}
	if g.p.IsSet("gid") {
		argv = append(argv, "-g", strconv.Itoa(g.p.Int("gid")))
		if g.p.Bool("non_unique") {
			argv = append(argv, "-o")
		}
	}
	if g.p.Bool("system") {
		argv = append(argv, "-r")
	}
	for _, k := range []string{"gid_min", "gid_max"} {
		if g.p.IsSet(k) {
			argv = append(argv, "-K", map[string]string{"gid_min": "GID_MIN=", "gid_max": "GID_MAX="}[k]+strconv.Itoa(g.p.Int(k)))
		}
	}
	return execute(g.req, append(argv, g.name), false)
}

func (g *groupRun) mod() (cmdOutcome, error) {
	if err := g.checkLocalGID(); err != nil {
		return cmdOutcome{}, err
	}
	bin, err := g.command("groupmod")
	if err != nil {
		return cmdOutcome{}, err
	}
	info, _ := groupByName(g.name)
	argv := []string{bin}
	if g.p.IsSet("gid") && info.gid != g.p.Int("gid") {
		argv = append(argv, "-g", strconv.Itoa(g.p.Int("gid")))
		if g.p.Bool("non_unique") {
			argv = append(argv, "-o")
		}
	}
	if len(argv) == 1 {
		return cmdOutcome{}, nil
	}
	if g.req.Check {
		return cmdOutcome{ran: true}, nil
	}
	return execute(g.req, append(argv, g.name), false)
}
