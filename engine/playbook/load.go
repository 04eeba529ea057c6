package playbook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/value"
	"gopkg.in/yaml.v3"
)

// Loader reads playbooks, task files and roles.
type Loader struct {
	// Resolve maps an action name (short or FQCN) to its canonical module
	// name; ok is false for an unknown module.
	Resolve func(name string) (canonical string, ok bool)
	// RolesPath is searched after the playbook's roles/ directory.
	RolesPath []string

	playbookDir string
	roles       map[string]*Role
	files       map[string]*fileCache
}

type fileCache struct {
	node *yaml.Node
	err  error
}

// NewLoader returns a loader using resolve for module names.
func NewLoader(resolve func(string) (string, bool), rolesPath []string) *Loader {
	return &Loader{Resolve: resolve, RolesPath: rolesPath, roles: map[string]*Role{}, files: map[string]*fileCache{}}
}

// PlaybookDir is the directory of the playbook being loaded.
func (l *Loader) PlaybookDir() string { return l.playbookDir }

// readYAML parses a file into its root node, reporting YAML errors with
// the position PyYAML would give.
func (l *Loader) readYAML(path string) (*yaml.Node, error) {
	if c, ok := l.files[path]; ok {
		return c.node, c.err
	}
	src, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var doc yaml.Node
	if err := yaml.Unmarshal(src, &doc); err != nil {
		le := yamlError(path, src, err)
		l.files[path] = &fileCache{err: le}
		return nil, le
	}
	var root *yaml.Node
	if len(doc.Content) > 0 {
		root = doc.Content[0]
	}
	l.files[path] = &fileCache{node: root}
	return root, nil
}

func yamlError(path string, src []byte, err error) *LoadError {
	msg := err.Error()
	line := 0
	if _, rest, ok := strings.Cut(msg, "yaml: line "); ok {
		fmt.Sscanf(rest, "%d", &line)
		if _, after, ok := strings.Cut(rest, ": "); ok {
			msg = after
		}
	} else {
		msg = strings.TrimPrefix(msg, "yaml: ")
	}
	lines := strings.Count(string(src), "\n") + 1
	le := &LoadError{Msg: "YAML parsing failed: " + yamlMessage(msg), Code: 4, Err: err}
	if line == 0 || line > lines {
		line = lines
		le.NoSource = "(source not shown: file truncated)"
	}
	le.Pos = value.Pos{File: path, Line: line, Col: 1}
	return le
}

func yamlMessage(m string) string {
	if m == "" {
		return m
	}
	m = strings.ToUpper(m[:1]) + m[1:]
	if !strings.HasSuffix(m, ".") {
		m += "."
	}
	return m
}

// LoadPlaybook loads a playbook file.
func (l *Loader) LoadPlaybook(path string) (*Playbook, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, &LoadError{Msg: fmt.Sprintf("the playbook: %s could not be found", path), Code: 1}
	}
	l.playbookDir = filepath.Dir(abs)
	root, err := l.readYAML(abs)
	if err != nil {
		return nil, err
	}
	pb := &Playbook{Path: abs, Dir: l.playbookDir}
	if root == nil {
		return pb, nil
	}
	if root.Kind != yaml.SequenceNode {
		return nil, parseErr(value.NodePos(abs, root), "A playbook must be a list of plays, got a %s instead", kindName(root))
	}
	for _, n := range root.Content {
		if n.Kind != yaml.MappingNode {
			return nil, parseErr(value.NodePos(abs, n), "A playbook must be a list of plays, got a %s instead", kindName(n))
		}
		if imp := mapGet(n, "import_playbook", "ansible.builtin.import_playbook"); imp != nil {
			sub, err := l.LoadPlaybook(filepath.Join(l.playbookDir, imp.Value))
			l.playbookDir = filepath.Dir(abs)
			if err != nil {
				return nil, err
			}
			pb.Plays = append(pb.Plays, sub.Plays...)
			continue
		}
		play, err := l.parsePlay(abs, n)
		if err != nil {
			return nil, err
		}
		pb.Plays = append(pb.Plays, play)
	}
	return pb, nil
}

func kindName(n *yaml.Node) string {
	switch n.Kind {
	case yaml.MappingNode:
		return "dict"
	case yaml.SequenceNode:
		return "list"
	}
	return "str"
}

func mapGet(n *yaml.Node, keys ...string) *yaml.Node {
	for i := 0; i+1 < len(n.Content); i += 2 {
		for _, k := range keys {
			if n.Content[i].Value == k {
				return n.Content[i+1]
			}
		}
	}
	return nil
}

func (l *Loader) parsePlay(file string, n *yaml.Node) (*Play, error) {
	p := &Play{Pos: value.NodePos(file, n)}
	dir := filepath.Dir(file)
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !playKeywords[k.Value] {
			return nil, parseErr(value.NodePos(file, k), "'%s' is not a valid attribute for a Play", k.Value)
		}
		var err error
		switch k.Value {
		case "name":
			p.Name = v.Value
		case "hosts":
			p.Hosts, err = value.FromYAML(file, v)
		case "gather_facts":
			p.GatherFacts, err = value.FromYAML(file, v)
		case "serial":
			p.Serial, err = value.FromYAML(file, v)
		case "force_handlers":
			p.ForceHandlers, err = value.FromYAML(file, v)
		case "vars_files":
			var vf any
			vf, err = value.FromYAML(file, v)
			if l, ok := vf.([]any); ok {
				p.VarsFiles = l
			} else if vf != nil {
				p.VarsFiles = []any{vf}
			}
		case "pre_tasks":
			p.PreTasks, err = l.parseItems(file, dir, v, nil)
		case "tasks":
			p.Tasks, err = l.parseItems(file, dir, v, nil)
		case "post_tasks":
			p.PostTasks, err = l.parseItems(file, dir, v, nil)
		case "handlers":
			p.Handlers, err = l.parseItems(file, dir, v, nil)
		case "roles":
			err = l.parseRoles(file, v, p)
		default:
			err = parseKeyword(&p.Keywords, file, k, v)
		}
		if err != nil {
			return nil, err
		}
	}
	if p.Hosts == nil {
		return nil, parseErr(p.Pos, "the field 'hosts' is required but was not set")
	}
	// import_role inside tasks registers static roles for the whole play.
	for _, items := range [][]Item{p.PreTasks, p.Tasks, p.PostTasks} {
		collectStaticRoles(items, &p.StaticRoles)
	}
	return p, nil
}

func collectStaticRoles(items []Item, out *[]*RoleInstance) {
	for _, it := range items {
		b, ok := it.(*Block)
		if !ok {
			continue
		}
		if b.Static && b.Role != nil {
			*out = append(*out, b.Role)
		}
		collectStaticRoles(b.Block, out)
		collectStaticRoles(b.Rescue, out)
		collectStaticRoles(b.Always, out)
	}
}

func (l *Loader) parseRoles(file string, v *yaml.Node, p *Play) error {
	if v.Kind != yaml.SequenceNode {
		return parseErr(value.NodePos(file, v), "A malformed list of role definitions was encountered.")
	}
	for _, rn := range v.Content {
		ref, err := parseRoleRef(file, rn)
		if err != nil {
			return err
		}
		ri, err := l.LoadRole(ref, nil)
		if err != nil {
			return err
		}
		p.Roles = append(p.Roles, ri)
	}
	return nil
}

func parseRoleRef(file string, rn *yaml.Node) (*RoleRef, error) {
	ref := &RoleRef{Pos: value.NodePos(file, rn), Params: value.NewDict(0)}
	switch rn.Kind {
	case yaml.ScalarNode:
		ref.Name = rn.Value
		return ref, nil
	case yaml.MappingNode:
	default:
		return nil, parseErr(ref.Pos, "role definitions must contain a role name")
	}
	for i := 0; i+1 < len(rn.Content); i += 2 {
		k, v := rn.Content[i], rn.Content[i+1]
		switch {
		case k.Value == "role" || k.Value == "name":
			ref.Name = v.Value
		case roleEntryKeywords[k.Value]:
			if err := parseKeyword(&ref.Keywords, file, k, v); err != nil {
				return nil, err
			}
		default:
			pv, err := value.FromYAML(file, v)
			if err != nil {
				return nil, err
			}
			ref.Params.Set(k.Value, pv)
		}
	}
	if ref.Name == "" {
		return nil, parseErr(ref.Pos, "role definitions must contain a role name")
	}
	return ref, nil
}

// parseKeyword stores a block/play/task keyword shared through Keywords.
func parseKeyword(kw *Keywords, file string, k, v *yaml.Node) error {
	val, err := value.FromYAML(file, v)
	if err != nil {
		return err
	}
	if kw.Set == nil {
		kw.Set = map[string]bool{}
	}
	kw.Set[k.Value] = true
	switch k.Value {
	case "when":
		kw.When = parseConds(file, v, val)
	case "vars":
		switch d := val.(type) {
		case *value.Dict:
			kw.Vars = d
		case nil:
		default:
			return parseErr(value.NodePos(file, v), "Vars in a %s must be specified as a dictionary.", "Task")
		}
	case "tags":
		kw.Tags = stringList(val)
	case "ignore_errors":
		kw.IgnoreErrors = val
	case "no_log":
		kw.NoLog = val
	case "environment":
		kw.Environment = val
	case "check_mode":
		kw.CheckMode = val
	case "diff":
		kw.Diff = val
	case "run_once":
		kw.RunOnce = val
	case "delegate_to":
		kw.DelegateTo = val
	case "any_errors_fatal":
		kw.AnyErrorsFatal = val
	case "become":
		kw.Become = val
	}
	return nil
}

func parseConds(file string, n *yaml.Node, v any) []Cond {
	if l, ok := v.([]any); ok && n.Kind == yaml.SequenceNode {
		out := make([]Cond, 0, len(l))
		for i, e := range l {
			out = append(out, Cond{Expr: e, Pos: value.NodePos(file, n.Content[i])})
		}
		return out
	}
	if v == nil {
		return nil
	}
	return []Cond{{Expr: v, Pos: value.NodePos(file, n)}}
}

func stringList(v any) []string {
	switch x := v.(type) {
	case []any:
		out := make([]string, 0, len(x))
		for _, e := range x {
			out = append(out, value.Str(e))
		}
		return out
	case string:
		var out []string
		for _, p := range strings.Split(x, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
		return out
	case nil:
		return nil
	}
	return []string{value.Str(v)}
}

// LoadTasksFile loads a task file for include_tasks/import_tasks.
func (l *Loader) LoadTasksFile(path string, role *RoleInstance) ([]Item, error) {
	root, err := l.readYAML(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &LoadError{Msg: fmt.Sprintf("Could not find or access '%s'", path), Code: 1, Err: err}
		}
		return nil, err
	}
	if root == nil {
		return nil, nil
	}
	return l.parseItems(path, filepath.Dir(path), root, role)
}

func (l *Loader) parseItems(file, dir string, n *yaml.Node, role *RoleInstance) ([]Item, error) {
	if n.Kind == yaml.ScalarNode && (n.Tag == "!!null" || n.Value == "") {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		return nil, parseErr(value.NodePos(file, n), "A malformed block was encountered while loading tasks: %s should be a list", kindName(n))
	}
	out := make([]Item, 0, len(n.Content))
	for _, tn := range n.Content {
		if tn.Kind != yaml.MappingNode {
			return nil, parseErr(value.NodePos(file, tn), "A malformed block was encountered while loading tasks: %s should be a list or None", kindName(tn))
		}
		it, err := l.parseItem(file, dir, tn, role)
		if err != nil {
			return nil, err
		}
		if it != nil {
			out = append(out, it)
		}
	}
	return out, nil
}

func (l *Loader) parseItem(file, dir string, n *yaml.Node, role *RoleInstance) (Item, error) {
	if mapGet(n, "block") != nil {
		return l.parseBlock(file, dir, n, role)
	}
	return l.parseTask(file, dir, n, role)
}

func (l *Loader) parseBlock(file, dir string, n *yaml.Node, role *RoleInstance) (*Block, error) {
	b := &Block{Pos: value.NodePos(file, n)}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !blockKeywords[k.Value] {
			return nil, parseErr(value.NodePos(file, k), "'%s' is not a valid attribute for a Block", k.Value)
		}
		var err error
		switch k.Value {
		case "block":
			b.Block, err = l.parseItems(file, dir, v, role)
		case "rescue":
			b.Rescue, err = l.parseItems(file, dir, v, role)
		case "always":
			b.Always, err = l.parseItems(file, dir, v, role)
		case "name":
			b.Name = v.Value
		default:
			err = parseKeyword(&b.Keywords, file, k, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}
