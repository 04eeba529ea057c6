package playbook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
	"gopkg.in/yaml.v3"
)

// Loader reads playbooks, task files and roles.
type Loader struct {
	// Modules resolves the action names tasks use.
	Modules Modules
	// RolesPath is searched after the playbook's roles/ directory.
	RolesPath []string
	// CollectionsPaths are the directories that hold installed
	// collections (each with an ansible_collections tree), searched
	// after the playbook's own collections/ directory.
	CollectionsPaths []string
	// MergeHashes is hash_behaviour=merge: dicts from several variable
	// sources merge instead of replacing each other.
	MergeHashes bool
	// PrivateRoleVars is private_role_vars when it is configured; nil
	// keeps the default (imports public, includes private).
	PrivateRoleVars *bool
	// Render templates names the loader must know (role names,
	// import_playbook paths); nil leaves them as written.
	Render Renderer
	// ExtraVars are the -e variables, visible to those templates.
	ExtraVars *value.Dict
	// ModulePath is DEFAULT_MODULE_PATH (ANSIBLE_LIBRARY), searched for
	// module files after the library/ directories of playbooks and roles.
	ModulePath []string
	// Vault decrypts the vault-encrypted files the loader reads (nil: the
	// run has no vault secrets).
	Vault *vault.Keyring
	// libraryDirs are the library/ directories of the playbooks and roles
	// loaded so far, in the order they were loaded.
	libraryDirs []string
	// moduleUtilsDirs are their module_utils/ directories.
	moduleUtilsDirs []string
	// pluginDirs are their filter_plugins, test_plugins and lookup_plugins
	// directories, by kind (plugindirs.go).
	pluginDirs map[string][]string
	// configuredModuleDirs is ModulePath with its subdirectories, listed
	// once; dirListings caches the directories searched for module files,
	// as ansible-core's plugin path cache does.
	configuredModuleDirs []string
	dirListings          map[string][]string

	playbookDir string
	// play is the play being loaded, whose variables templates see.
	play     *Play
	roles    map[string]*Role
	files    map[string]*fileCache
	imported []*RoleInstance
	// messages collects -vvv notes while a playbook loads; warnings its
	// warnings.
	messages []string
	warnings []*diag.Diagnostic
	// inHandlers is set while a handlers section or file loads.
	inHandlers bool
	// collStack holds the `collections` of the blocks being parsed,
	// innermost last: a task inherits the nearest one.
	collStack [][]string
	// importVars are the vars of the import_playbook entry whose plays
	// are loading: a play without vars of its own sees them at load time
	// (ansible-core's Play.load starts from them).
	importVars *value.Dict
	// views are the mappings with aliases or merge keys as the loader
	// reads them (aliases.go); items counts the tasks and blocks the
	// outermost load in progress (loadDepth deep) has built.
	views     map[*yaml.Node]*yaml.Node
	items     int
	loadDepth int
}

// Renderer renders a template with variable layers, lowest first.
type Renderer func(tmpl string, layers []*value.Dict) (any, error)

type fileCache struct {
	node *yaml.Node
	err  error
}

// Modules resolves action names; *module.Registry implements it.
type Modules interface {
	// Lookup classifies an action name (short or FQCN).
	Lookup(name string) (module.Info, bool)
	// Names lists every accepted name, for "did you mean" suggestions.
	Names() []string
}

// NewLoader returns a loader that resolves action names with mods.
func NewLoader(mods Modules, rolesPath []string) *Loader {
	return &Loader{Modules: mods, RolesPath: rolesPath, roles: map[string]*Role{}, files: map[string]*fileCache{}}
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
	if vault.IsEncrypted(src) {
		// ansible-core's DataLoader decrypts any vault-encrypted file it
		// reads: vars files, task files, playbooks.
		plain, err := l.Vault.Decrypt(src)
		if err != nil {
			le := &diag.Diagnostic{Summary: err.Error(), Origin: diag.At(value.Pos{File: path}), Wrapped: err}
			l.files[path] = &fileCache{err: le}
			return nil, le
		}
		src = plain
	}
	if line, col, deep := value.YAMLTooDeep(src); deep {
		le := yamlProblem(path, src, "while parsing a flow collection", fmt.Sprintf("found collections nested more than %d levels deep", value.MaxDepth), line, col)
		l.files[path] = &fileCache{err: le}
		return nil, le
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
	l.duplicateKeys(path, root)
	if bad := unhashableKey(root); bad != nil {
		le := yamlProblem(path, src, "while constructing a mapping", "found unhashable key", bad.Line, bad.Column)
		l.files[path] = &fileCache{err: le}
		return nil, le
	}
	l.files[path] = &fileCache{node: root}
	return root, nil
}

// LoadPlaybook loads a playbook file.
func (l *Loader) LoadPlaybook(path string) (*Playbook, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, err
	}
	if _, err := os.Stat(abs); err != nil {
		return nil, &diag.Diagnostic{Summary: fmt.Sprintf("the playbook: %s could not be found", path), Code: diag.ExitFailure}
	}
	defer l.enterLoad()()
	l.playbookDir = filepath.Dir(abs)
	l.addPluginDir(l.playbookDir)
	pb := &Playbook{Arg: path, Path: abs, Dir: l.playbookDir}
	outer, outerW := l.messages, l.warnings
	l.messages, l.warnings = nil, nil
	defer func() {
		pb.Messages, pb.Warnings = l.messages, l.warnings
		l.messages = append(outer, l.messages...)
		l.warnings = append(outerW, l.warnings...)
	}()
	root, err := l.readYAML(abs)
	if err != nil {
		return nil, err
	}
	if root == nil || (root.Kind == yaml.ScalarNode && root.Tag == "!!null") {
		return nil, &diag.Diagnostic{Summary: "Empty playbook, nothing to do: " + abs, Code: diag.ExitParse}
	}
	root = deref(root)
	if root.Kind != yaml.SequenceNode {
		return nil, parseErr(value.NodePos(abs, root), "A playbook must be a list of plays, got a %s instead: %s", TaggedClass(file2value(abs, root)), abs)
	}
	if len(root.Content) == 0 {
		return nil, &diag.Diagnostic{Summary: "A playbook must contain at least one play: " + abs, Code: diag.ExitParse}
	}
	for _, n := range root.Content {
		n, err := l.mappingView(abs, n)
		if err != nil {
			return nil, err
		}
		if n.Kind != yaml.MappingNode {
			return nil, parseErr(value.NodePos(abs, n), "playbook entries must be either valid plays or 'import_playbook' statements")
		}
		if imp := mapGet(n, "import_playbook", "ansible.builtin.import_playbook"); imp != nil {
			plays, err := l.importPlaybook(abs, n, imp)
			l.playbookDir = filepath.Dir(abs)
			if err != nil {
				return nil, err
			}
			pb.Plays = append(pb.Plays, plays...)
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

// importPlaybook loads an import_playbook entry: the imported plays get
// the entry's vars (over their own), tags and conditions.
func (l *Loader) importPlaybook(file string, n, imp *yaml.Node) ([]*Play, error) {
	var kw Keywords
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		switch k.Value {
		case "import_playbook", "ansible.builtin.import_playbook", "name":
		case "vars", "tags", "when":
			if err := parseKeyword(&kw, file, k, v, "PlaybookInclude"); err != nil {
				return nil, err
			}
		default:
			return nil, parseErr(value.NodePos(file, k), "'%s' is not a valid attribute for a PlaybookInclude", k.Value)
		}
	}
	path, err := l.renderImportPath(imp.Value, kw.Vars, value.NodePos(file, imp))
	if err != nil {
		return nil, err
	}
	if !filepath.IsAbs(path) {
		path = filepath.Join(l.playbookDir, path)
	}
	outerVars := l.importVars
	l.importVars = kw.Vars
	sub, err := l.LoadPlaybook(path)
	l.importVars = outerVars
	if err != nil {
		return nil, err
	}
	for _, p := range sub.Plays {
		if kw.Vars != nil {
			vars := value.NewDict(0)
			vars.Update(p.Vars)
			vars.Update(kw.Vars)
			copyOrigins(vars, p.Vars, kw.Vars)
			p.Vars = vars
		}
		p.Tags = append(p.Tags, kw.Tags...)
		if len(kw.When) > 0 {
			p.When = append(append([]Cond{}, kw.When...), p.When...)
		}
	}
	return sub.Plays, nil
}

// renderImportPath templates an import_playbook name with the entry's
// vars and the extra vars.
func (l *Loader) renderImportPath(name string, vars *value.Dict, pos value.Pos) (string, error) {
	if l.Render == nil || !strings.Contains(name, "{{") && !strings.Contains(name, "{%") {
		return name, nil
	}
	v, err := l.Render(name, []*value.Dict{vars, l.ExtraVars, value.DictOf("playbook_dir", l.playbookDir)})
	if err != nil {
		return "", &diag.Diagnostic{Summary: err.Error(), Origin: diag.At(pos), Code: diag.ExitFailure, Wrapped: err}
	}
	return value.Str(v), nil
}

// file2value converts a node for an error message (errors give nil).
func file2value(file string, n *yaml.Node) any {
	v, _ := value.FromYAML(file, n)
	return v
}

// TaggedClass names the Python class ansible-core 2.19 reports for a value
// loaded from YAML.
func TaggedClass(v any) string {
	const tagged = "ansible.module_utils._internal._datatag._AnsibleTagged"
	switch v.(type) {
	case *value.Dict:
		return py.ClassRepr(tagged + "Dict")
	case []any:
		return py.ClassRepr(tagged + "List")
	case string:
		return py.ClassRepr(tagged + "Str")
	case int, int64:
		return py.ClassRepr(tagged + "Int")
	case float64:
		return py.ClassRepr(tagged + "Float")
	}
	return py.ClassRepr(value.TypeName(v))
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

// playKeyPriority orders the keys of a play as ansible-core loads them:
// vars, vars_files and roles first (templates in role names may use
// them), the task sections last.
func playKeyPriority(key string) int {
	switch key {
	case "vars", "collections":
		return 100
	case "vars_files":
		return 99
	case "roles":
		return 90
	case "handlers", "pre_tasks", "post_tasks", "tasks":
		return -1
	case "hosts":
		return -2
	}
	return 0
}

func (l *Loader) parsePlay(file string, n *yaml.Node) (*Play, error) {
	p := &Play{Pos: value.NodePos(file, n), Dir: filepath.Dir(file)}
	var keys []int
	for i := 0; i+1 < len(n.Content); i += 2 {
		if n.Content[i].Value == "user" {
			// `user` is the old name of remote_user.
			if mapGet(n, "remote_user") != nil {
				return nil, parseErr(p.Pos, "both 'user' and 'remote_user' are set for this play. The use of 'user' is deprecated, and should be removed")
			}
			renamed := *n.Content[i]
			renamed.Value = "remote_user"
			n.Content[i] = &renamed
		}
		if k := n.Content[i]; !playKeywords[k.Value] {
			return nil, parseErr(value.NodePos(file, k), "'%s' is not a valid attribute for a Play", k.Value)
		}
		keys = append(keys, i)
	}
	sort.SliceStable(keys, func(a, b int) bool {
		return playKeyPriority(n.Content[keys[a]].Value) > playKeyPriority(n.Content[keys[b]].Value)
	})
	if l.importVars != nil {
		p.Vars = l.importVars.Copy()
		copyOrigins(p.Vars, l.importVars)
	}
	outer := l.play
	l.play = p
	defer func() { l.play = outer }()
	for _, i := range keys {
		if err := l.parsePlayKey(p, file, n.Content[i], n.Content[i+1]); err != nil {
			return nil, err
		}
	}
	if p.Hosts == nil {
		return nil, parseErr(p.Pos, "The field 'hosts' is required but was not set.")
	}
	return p, nil
}

// parsePlayKey loads one key of a play.
func (l *Loader) parsePlayKey(p *Play, file string, k, v *yaml.Node) error {
	dir := filepath.Dir(file)
	var err error
	switch k.Value {
	case "name":
		p.Name = v.Value
	case "hosts":
		p.Hosts, err = value.FromYAML(file, v)
	case "gather_facts":
		p.GatherFacts, err = value.FromYAML(file, v)
	case "vars_prompt":
		err = l.promptVars(p, file, v)
	case "gather_subset":
		p.GatherSubset, err = value.FromYAML(file, v)
	case "gather_timeout":
		p.GatherTimeout, err = value.FromYAML(file, v)
	case "fact_path":
		p.FactPath, err = value.FromYAML(file, v)
	case "serial":
		p.Serial, err = value.FromYAML(file, v)
	case "force_handlers":
		p.ForceHandlers, err = value.FromYAML(file, v)
	case "order":
		p.Order, err = value.FromYAML(file, v)
	case "max_fail_percentage":
		p.MaxFailPercentage, err = value.FromYAML(file, v)
	case "collections":
		var c any
		c, err = value.FromYAML(file, v)
		p.Collections = searchList(stringList(c))
	case "vars_files":
		p.VarsFilesPos = value.NodePos(file, v)
		var vf any
		vf, err = value.FromYAML(file, v)
		if l, ok := vf.([]any); ok {
			p.VarsFiles = l
		} else if vf != nil {
			p.VarsFiles = []any{vf}
		}
		p.VarsFilesItemPos, p.VarsFilesNamePos = varsFilesPositions(file, v)
	case "pre_tasks", "tasks", "post_tasks", "handlers":
		var items []Item
		l.inHandlers = k.Value == "handlers"
		items, err = l.parseItems(file, dir, v, nil, p.Pos, k.Value)
		l.inHandlers = false
		*p.section(k.Value) = items
		p.StaticRoles = append(p.StaticRoles, l.ImportedRoles()...)
	case "roles":
		err = l.parseRoles(file, v, p)
	default:
		err = parseKeyword(&p.Keywords, file, k, v, "Play")
	}
	return err
}

// varsFilesPositions lists where each vars_files entry was written and,
// for a list entry, each of its names.
func varsFilesPositions(file string, n *yaml.Node) ([]value.Pos, [][]value.Pos) {
	items := []*yaml.Node{n}
	if n.Kind == yaml.SequenceNode {
		items = n.Content
	}
	var itemPos []value.Pos
	var namePos [][]value.Pos
	for _, it := range items {
		itemPos = append(itemPos, value.NodePos(file, it))
		names := []value.Pos{value.NodePos(file, it)}
		if it.Kind == yaml.SequenceNode {
			names = nil
			for _, e := range it.Content {
				names = append(names, value.NodePos(file, e))
			}
		}
		namePos = append(namePos, names)
	}
	return itemPos, namePos
}

// ImportedRoles returns the roles import_role brought in since the last
// call: they belong to the play, which sees their variables.
func (l *Loader) ImportedRoles() []*RoleInstance {
	out := l.imported
	l.imported = nil
	return out
}

// SetPlay tells the loader which play the files it loads next belong to
// (task files and roles included while the play runs).
func (l *Loader) SetPlay(p *Play) { l.play = p }

func (l *Loader) parseRoles(file string, v *yaml.Node, p *Play) error {
	v = deref(v)
	if v.Kind == yaml.ScalarNode && v.Tag == "!!null" {
		return nil
	}
	if v.Kind != yaml.SequenceNode {
		val := file2value(file, v)
		return parseErr(p.Pos, "A malformed role declaration was encountered: ds (%s) should be a list but was a %s", value.Str(val), TaggedClass(val))
	}
	for _, rn := range v.Content {
		rn, err := l.mappingView(file, rn)
		if err != nil {
			return err
		}
		ref, err := parseRoleRef(file, rn)
		if err != nil {
			return err
		}
		ref.Static, ref.Collections = true, p.Collections
		ri, err := l.LoadRole(ref, nil)
		if err != nil {
			return err
		}
		p.Roles = append(p.Roles, ri)
	}
	// Roles the listed roles import in their tasks belong to the play
	// too: their defaults and vars are visible after the import.
	p.StaticRoles = append(p.StaticRoles, l.ImportedRoles()...)
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
	var src string
	for i := 0; i+1 < len(rn.Content); i += 2 {
		k, v := rn.Content[i], rn.Content[i+1]
		switch {
		case k.Value == "role":
			ref.Name = v.Value
		case k.Value == "name":
			if ref.Name == "" {
				ref.Name = v.Value
			}
		case roleEntryKeywords[k.Value]:
			if err := parseKeyword(&ref.Keywords, file, k, v, "Role"); err != nil {
				return nil, err
			}
		default:
			pv, err := value.FromYAML(file, v)
			if err != nil {
				return nil, err
			}
			ref.Params.Set(k.Value, pv)
			if k.Value == "src" {
				src = value.Str(pv)
			}
		}
	}
	if ref.Name == "" && src != "" {
		ref.Name = roleNameFromSource(src)
	}
	if ref.Name == "" {
		return nil, parseErr(ref.Pos, "role definitions must contain a role name")
	}
	return ref, nil
}

// roleNameFromSource is the role name of a galaxy-style dependency
// {src: URL[,version[,name]]}: the given name, or the source's last path
// element without .git or an archive extension.
func roleNameFromSource(src string) string {
	parts := strings.Split(src, ",")
	if len(parts) > 2 && strings.TrimSpace(parts[2]) != "" {
		return strings.TrimSpace(parts[2])
	}
	name := strings.TrimSpace(parts[0])
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	for _, ext := range []string{".git", ".tar.gz"} {
		name = strings.TrimSuffix(name, ext)
	}
	return name
}

// parseKeyword stores a block/play/task keyword shared through Keywords.
func parseKeyword(kw *Keywords, file string, k, v *yaml.Node, owner string) error {
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
		if err := checkVarNames(file, v); err != nil {
			return err
		}
		switch d := val.(type) {
		case *value.Dict:
			kw.Vars = d
			RecordOrigins(file, v, d)
		case nil:
		default:
			return parseErr(value.NodePos(file, v), "Vars in a %s must be specified as a dictionary.", owner)
		}
	case "tags":
		kw.Tags = stringList(val)
	case "ignore_errors":
		kw.IgnoreErrors = val
	case "no_log":
		kw.NoLog = val
	case "environment":
		kw.Environment = val
	case "module_defaults":
		kw.ModuleDefaults = val
	case "check_mode":
		kw.CheckMode = val
	case "diff":
		kw.Diff = val
	case "run_once":
		kw.RunOnce = val
	case "delegate_to":
		kw.DelegateTo = val
	case "delegate_facts":
		kw.DelegateFacts = val
	case "any_errors_fatal":
		kw.AnyErrorsFatal = val
	case "become":
		kw.Become = val
	case "become_user":
		kw.BecomeUser = val
	case "become_method":
		kw.BecomeMethod = val
	case "become_flags":
		kw.BecomeFlags = val
	case "connection":
		kw.Connection = val
	case "ignore_unreachable":
		kw.IgnoreUnreachable = val
	case "notify":
		kw.Notify = stringListKeep(val)
	case "remote_user":
		kw.RemoteUser = val
	case "throttle":
		kw.Throttle, kw.ThrottlePos = val, value.NodePos(file, v)
	}
	return nil
}

// checkVarNames rejects variable names that are not strings (YAML 1.1
// turns keys such as "on" into booleans).
func checkVarNames(file string, n *yaml.Node) error {
	if n.Kind != yaml.MappingNode {
		return nil
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k := n.Content[i]
		if k.Kind != yaml.ScalarNode || k.Value == "<<" {
			continue
		}
		kv, _ := value.ScalarFromYAML(k)
		if _, isStr := kv.(string); !isStr {
			return &diag.Diagnostic{Origin: diag.Unknown(), Code: diag.ExitFailure, Note: value.Repr(kv), Help: varNameHelp, Summary: fmt.Sprintf("Invalid variable name %s of type '%s'.", value.Repr(value.Repr(kv)), value.TypeName(kv))}
		}
	}
	return nil
}

const varNameHelp = "Variable names must be strings starting with a letter or underscore character, and contain only letters, numbers and underscores."

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

// duplicateKeys warns about keys repeated in a mapping, as ansible-core's
// YAML loader does (the last value wins).
func (l *Loader) duplicateKeys(file string, n *yaml.Node) {
	if n == nil {
		return
	}
	if n.Kind == yaml.MappingNode {
		seen := map[string]bool{}
		pairs := n.Content
		if hasMergeKey(n) {
			// The merged mappings' keys come first (flatten_mapping), so
			// the mapping's own key is the duplicate; a bad merge is the
			// loader's error where it reads the mapping.
			if flat, err := l.flatPairs(file, n); err == nil {
				pairs = flat
			}
		}
		for i := 0; i+1 < len(pairs); i += 2 {
			k := pairs[i]
			if k.Kind == yaml.ScalarNode && !isMergeKey(k) {
				if seen[k.Value] {
					w := diag.Warn(fmt.Sprintf("Found duplicate mapping key '%s'.", k.Value), originOf(value.NodePos(file, k)))
					w.Help = "Using last defined value only."
					l.warnings = append(l.warnings, w)
				}
				seen[k.Value] = true
			}
		}
	}
	for _, c := range n.Content {
		l.duplicateKeys(file, c)
	}
}

// Warnings returns the warnings of the files loaded since the last call
// (roles and task files loaded while a playbook runs).
func (l *Loader) Warnings() []*diag.Diagnostic {
	w := l.warnings
	l.warnings = nil
	return w
}

// FileNotFoundMessage is ansible-core's AnsibleFileNotFound message for a
// controller file that does not exist.
func FileNotFoundMessage(path string) string {
	return fmt.Sprintf("Unable to retrieve file contents.\nCould not find or access '%s' on the Ansible Controller.\n"+
		"If you are using a module and expect the file to exist on the remote, see the remote_src option: "+
		"[Errno 2] No such file or directory: '%s'", path, path)
}

// LoadTasksFile loads a task file for include_tasks/import_tasks.
func (l *Loader) LoadTasksFile(path string, role *RoleInstance) ([]Item, error) {
	defer l.enterLoad()()
	root, err := l.readYAML(path)
	if err != nil {
		if errors.Is(err, os.ErrNotExist) {
			return nil, &diag.Diagnostic{Summary: FileNotFoundMessage(path), Code: diag.ExitFailure, Wrapped: err}
		}
		return nil, err
	}
	if root == nil {
		return nil, nil
	}
	return l.parseItems(path, filepath.Dir(path), root, role, value.NodePos(path, root), "tasks")
}

// LoadIncludedTasks loads the file of include_tasks task t: its tasks
// belong to t's role and inherit the `collections` of t's blocks.
func (l *Loader) LoadIncludedTasks(path string, t *Task) ([]Item, error) {
	if t.BlockCollections != nil {
		l.collStack = append(l.collStack, t.BlockCollections)
		defer func() { l.collStack = l.collStack[:len(l.collStack)-1] }()
	}
	return l.LoadTasksFile(path, t.Role)
}

// LoadHandlersFile loads a role's handlers file.
func (l *Loader) LoadHandlersFile(path string, role *RoleInstance) ([]Item, error) {
	outer := l.inHandlers
	l.inHandlers = true
	defer func() { l.inHandlers = outer }()
	return l.LoadTasksFile(path, role)
}

// checkMeta rejects meta: end_role where ansible-core cannot run it:
// outside a role and in a handler.
func (l *Loader) checkMeta(t *Task) error {
	if t.Info.Kind != module.KindMeta || value.Str(t.Args.Default("_raw_params", "")) != "end_role" {
		return nil
	}
	if l.inHandlers {
		return &diag.Diagnostic{Origin: diag.Unknown(), Code: diag.ExitParse, Summary: "Cannot execute 'end_role' from a handler", Note: "HANDLER: " + t.GetName()}
	}
	if t.Role == nil {
		return &diag.Diagnostic{Origin: diag.Unknown(), Code: diag.ExitParse, Summary: "Cannot execute 'end_role' from outside of a role", Note: "TASK: meta (end_role)"}
	}
	return nil
}

// GetName is the task's name as ansible-core's Task.get_name gives it:
// its action when it has no name, after its role's name.
func (t *Task) GetName() string {
	name := t.Name
	if name == "" {
		name = t.Action
	}
	if t.Role != nil {
		return t.Role.Name() + " : " + name
	}
	return name
}

// parseItems parses a task list. owner is the play or block it belongs
// to, where ansible-core places a malformed list's error; section names
// the list: a play's (tasks, handlers, ...) may be null, a block's
// (block, rescue, always) may not.
func (l *Loader) parseItems(file, dir string, n *yaml.Node, role *RoleInstance, owner value.Pos, section string) ([]Item, error) {
	blockSection := blockSectionNames[section]
	n = deref(n)
	if n.Kind == yaml.ScalarNode && n.Tag == "!!null" && blockSection == "" {
		return nil, nil
	}
	if n.Kind != yaml.SequenceNode {
		v := file2value(file, n)
		if blockSection != "" {
			return nil, parseErr(owner, "A malformed block was encountered while loading %s: The ds (%s) should be a list but was a %s", blockSection, value.Str(v), TaggedClass(v))
		}
		return nil, parseErr(owner, "A malformed block was encountered while loading tasks: %s should be a list or None but is %s", value.Str(v), TaggedClass(v))
	}
	out := make([]Item, 0, len(n.Content))
	for _, tn := range n.Content {
		tn, err := l.mappingView(file, tn)
		if err != nil {
			return nil, err
		}
		if tn.Kind != yaml.MappingNode {
			list := file2value(file, n)
			return nil, &diag.Diagnostic{Origin: diag.Unknown(), Code: diag.ExitParse, Note: value.Repr(list), Summary: fmt.Sprintf("A malformed block was encountered while loading a block: The ds (%s) should be a dict but was a <class 'list'>", value.Repr(list))}
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

// blockSectionNames are the words ansible-core's errors use for the task
// lists of a block.
var blockSectionNames = map[string]string{"block": "a block", "rescue": "rescue", "always": "always"}

func (l *Loader) parseItem(file, dir string, n *yaml.Node, role *RoleInstance) (Item, error) {
	if err := l.countItem(file, n); err != nil {
		return nil, err
	}
	if mapGet(n, "block") != nil {
		return l.parseBlock(file, dir, n, role)
	}
	return l.parseTask(file, dir, n, role)
}

func (l *Loader) parseBlock(file, dir string, n *yaml.Node, role *RoleInstance) (*Block, error) {
	b := &Block{Pos: value.NodePos(file, n)}
	if l.inHandlers {
		return nil, &diag.Diagnostic{Code: diag.ExitParse, Summary: "Using a block as a handler is not supported.", Origin: diag.At(b.Pos)}
	}
	if cn := mapGet(n, "collections"); cn != nil {
		if c, err := value.FromYAML(file, cn); err == nil {
			if list := searchList(stringList(c)); len(list) > 0 {
				l.collStack = append(l.collStack, list)
				defer func() { l.collStack = l.collStack[:len(l.collStack)-1] }()
			}
		}
	}
	for i := 0; i+1 < len(n.Content); i += 2 {
		k, v := n.Content[i], n.Content[i+1]
		if !blockKeywords[k.Value] {
			return nil, parseErr(value.NodePos(file, k), "'%s' is not a valid attribute for a Block", k.Value)
		}
		var err error
		switch k.Value {
		case "block":
			b.Block, err = l.parseItems(file, dir, v, role, b.Pos, "block")
		case "rescue":
			b.Rescue, err = l.parseItems(file, dir, v, role, b.Pos, "rescue")
		case "always":
			b.Always, err = l.parseItems(file, dir, v, role, b.Pos, "always")
		case "name":
			b.Name = v.Value
		default:
			err = parseKeyword(&b.Keywords, file, k, v, "Block")
		}
		if err != nil {
			return nil, err
		}
	}
	return b, nil
}

// searchList completes a `collections` keyword's list as Task.preprocess_data
// does: ansible.legacy is searched last unless ansible.builtin or
// ansible.legacy is listed.
func searchList(l []string) []string {
	if len(l) > 0 && !slices.Contains(l, "ansible.builtin") && !slices.Contains(l, "ansible.legacy") {
		l = append(l, "ansible.legacy")
	}
	return l
}
