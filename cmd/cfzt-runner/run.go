package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/modules"
	"github.com/cfzt/cfzt-runner/modules/k8s"
	"github.com/cfzt/cfzt-runner/modules/uri"
	"github.com/mattn/go-isatty"
)

// version is set at build time.
var version = "0.1.0-dev"

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

type cli struct {
	inventory, extra, tags, skipTags multi
	verbose                          int
	check, diff, syntax, listTasks   bool
	listTags, showVersion            bool
	listHosts, forceHandlers         bool
	startAt                          string
	limit                            multi
	op                               *operatorFlags // operator runtime (operator.go)
}

// ignoredFlag accepts an ansible-playbook option that has no effect on a
// local runtime (connection, forks, privilege escalation).
type ignoredFlag struct{}

func (ignoredFlag) String() string     { return "" }
func (ignoredFlag) Set(s string) error { return nil }

// ignoredBool is a boolean ansible-playbook option with no effect here.
type ignoredBool struct{}

func (ignoredBool) String() string     { return "false" }
func (ignoredBool) Set(s string) error { return nil }
func (ignoredBool) IsBoolFlag() bool   { return true }

func parseArgs(args []string) (*cli, []string, error) {
	c := &cli{}
	fs := flag.NewFlagSet("cfzt-runner", flag.ContinueOnError)
	fs.Var(&c.inventory, "i", "inventory")
	fs.Var(&c.inventory, "inventory", "inventory")
	fs.Var(&c.extra, "e", "extra vars")
	fs.Var(&c.extra, "extra-vars", "extra vars")
	fs.Var(&c.tags, "t", "tags")
	fs.Var(&c.tags, "tags", "tags")
	fs.Var(&c.skipTags, "skip-tags", "skip tags")
	fs.BoolVar(&c.check, "C", false, "check mode")
	fs.BoolVar(&c.check, "check", false, "check mode")
	// ANSIBLE_DIFF_ALWAYS is ansible-core's DIFF_ALWAYS: the default of --diff.
	fs.BoolVar(&c.diff, "D", envBool("ANSIBLE_DIFF_ALWAYS", false), "diff")
	fs.BoolVar(&c.diff, "diff", envBool("ANSIBLE_DIFF_ALWAYS", false), "diff")
	fs.BoolVar(&c.syntax, "syntax-check", false, "syntax check")
	fs.BoolVar(&c.listTasks, "list-tasks", false, "list tasks")
	fs.BoolVar(&c.listTags, "list-tags", false, "list tags")
	fs.BoolVar(&c.listHosts, "list-hosts", false, "list hosts")
	fs.BoolVar(&c.forceHandlers, "force-handlers", false, "run handlers even if a task fails")
	fs.BoolVar(&c.showVersion, "version", false, "version")
	fs.StringVar(&c.startAt, "start-at-task", "", "start at task")
	fs.Var(&c.limit, "l", "limit to hosts matching a pattern")
	fs.Var(&c.limit, "limit", "limit to hosts matching a pattern")
	// Accepted for compatibility; a local runtime has no use for them.
	for _, name := range []string{"c", "connection", "f", "forks", "u", "user", "become-user", "become-method",
		"T", "timeout", "private-key", "key-file", "M", "module-path", "vault-id", "vault-password-file", "ssh-common-args", "scp-extra-args", "sftp-extra-args", "ssh-extra-args"} {
		fs.Var(ignoredFlag{}, name, "accepted, no effect")
	}
	for _, name := range []string{"b", "become", "K", "ask-become-pass", "k", "ask-pass", "flush-cache", "ask-vault-password", "ask-vault-pass"} {
		fs.Var(ignoredBool{}, name, "accepted, no effect")
	}
	c.op = addOperatorFlags(fs)
	// -v, -vv, ... are counted before flag parsing.
	var rest []string
	for _, a := range args {
		if len(a) > 1 && a[0] == '-' && strings.Trim(a[1:], "v") == "" {
			c.verbose += len(a) - 1
			continue
		}
		if a == "--verbose" {
			c.verbose++
			continue
		}
		rest = append(rest, a)
	}
	// Options may follow or sit between playbooks, as with
	// ansible-playbook's intermixed argument parsing.
	var books []string
	for {
		if err := fs.Parse(rest); err != nil {
			return nil, nil, err
		}
		rest = fs.Args()
		if len(rest) == 0 {
			break
		}
		if rest[0] == "--" {
			books = append(books, rest[1:]...)
			break
		}
		books = append(books, rest[0])
		rest = rest[1:]
	}
	return c, books, nil
}

func runCLI(ctx context.Context, args []string) int {
	c, books, err := parseArgs(args)
	if err != nil {
		return 2
	}
	if c.showVersion {
		fmt.Printf("cfzt-runner %s [core 2.19.11 compatible]\n", version)
		return 0
	}
	if v := os.Getenv("ANSIBLE_VERBOSITY"); v != "" && c.verbose == 0 {
		fmt.Sscanf(v, "%d", &c.verbose)
	}
	if len(books) == 0 {
		fmt.Fprintln(os.Stderr, "usage: cfzt-runner [options] PLAYBOOK...")
		return 5
	}
	if c.op.handles() {
		return runOperator(ctx, c, c.op, books)
	}
	reg, err := modules.NewRegistry(modules.Builtin(), k8s.Modules(), uri.Modules())
	if err != nil {
		return exitCode(err)
	}
	playbook.SetKnownModules(reg.Names())
	cfg := loadConfig()
	if cfg.err != nil {
		fmt.Fprintln(os.Stderr, "[ERROR]:", cfg.err)
		return 1
	}
	for _, book := range books {
		if st, err := os.Stat(book); err != nil {
			fmt.Fprintf(os.Stderr, "[ERROR]: the playbook: %s could not be found\n", book)
			return 1
		} else if st.IsDir() {
			fmt.Fprintf(os.Stderr, "[ERROR]: the playbook: %s does not appear to be a file\n", book)
			return 1
		}
	}
	loader := playbook.NewLoader(reg.Resolve, cfg.rolesPath)
	disp := &display.Default{Out: os.Stdout, Err: os.Stderr, Verbose: c.verbose, Color: useColor(), ConfigMsg: cfg.message, ConfigFile: cfg.path}
	extra, err := parseExtraVars(c.extra)
	if err != nil {
		return exitCode(err)
	}
	inv := loadInventory(c.inventory, disp)
	eng := template.New()
	listing := c.listTasks || c.listTags || c.listHosts
	var loaded []*playbook.Playbook
	for _, book := range books {
		pb, err := loader.LoadPlaybook(book)
		if err != nil {
			errDisp := &display.Default{Out: os.Stderr, Verbose: c.verbose}
			fmt.Fprint(os.Stderr, errDisp.FormatError(loadErr(err)))
			return exitCode(err)
		}
		loaded = append(loaded, pb)
	}
	if c.syntax {
		for _, pb := range loaded {
			fmt.Printf("\nplaybook: %s\n", pb.Arg)
		}
		return 0
	}
	if listing {
		for _, pb := range loaded {
			inv.AddVarsDir(pb.Dir)
			run.ListPlaybook(os.Stdout, pb, inv, run.ListOptions{Tasks: c.listTasks, Tags: c.listTags, Hosts: c.listHosts,
				OnlyTags: splitTags(c.tags), SkipTags: splitTags(c.skipTags)})
		}
		return 0
	}
	// One runner for every playbook: facts and counters carry over, and a
	// failed playbook stops the rest, as with ansible-playbook.
	r := &run.Runner{Engine: eng, Modules: reg, Loader: loader, Display: disp, Inventory: inv, Stdout: os.Stdout,
		ConfigFile: cfg.pathValue(),
		Opts:       c.runOptions(extra)}
	code := 0
	for _, pb := range loaded {
		inv.AddVarsDir(pb.Dir)
		if code = r.Run(ctx, pb); code != 0 {
			break
		}
	}
	return code
}

// runOptions are the executor options the command line selects, shared by
// the one-shot run and the operator loop.
func (c *cli) runOptions(extra *value.Dict) run.Options {
	return run.Options{Check: c.check, Diff: c.diff, Verbosity: c.verbose, Tags: splitTags(c.tags), SkipTags: splitTags(c.skipTags),
		StartAt: c.startAt, ExtraVars: extra, ForceHandlers: c.forceHandlers, Limit: strings.Join(c.limit, ":")}
}

// loadErr turns a LoadError into the chain the display prints.
func loadErr(err error) error {
	le, ok := err.(*playbook.LoadError)
	if ok && le.Note != "" {
		return &run.ChainError{Msg: le.Msg, Origin: &value.Pos{}, Note: le.Note, Help: le.Help}
	}
	if !ok || le.Pos.IsZero() {
		return err
	}
	p := le.Pos
	return &run.ChainError{Msg: le.Msg, Origin: &p, Help: le.Help}
}

func splitTags(m multi) []string {
	var out []string
	for _, s := range m {
		for _, t := range strings.Split(s, ",") {
			if t = strings.TrimSpace(t); t != "" {
				out = append(out, t)
			}
		}
	}
	return out
}

func useColor() bool {
	if os.Getenv("ANSIBLE_NOCOLOR") != "" && os.Getenv("ANSIBLE_NOCOLOR") != "0" || os.Getenv("NO_COLOR") != "" {
		return false
	}
	if f := os.Getenv("ANSIBLE_FORCE_COLOR"); f != "" && f != "0" && strings.ToLower(f) != "false" {
		return true
	}
	return isatty.IsTerminal(os.Stdout.Fd())
}

// parseExtraVars handles k=v, JSON/YAML and @file forms of -e.
func parseExtraVars(args multi) (*value.Dict, error) {
	out := value.NewDict(0)
	for _, a := range args {
		var src []byte
		name := "extra vars"
		switch {
		case strings.HasPrefix(a, "@"):
			data, err := os.ReadFile(a[1:])
			if err != nil {
				return nil, fmt.Errorf("could not read extra vars file %s: %w", a[1:], err)
			}
			src, name = data, a[1:]
		case strings.HasPrefix(strings.TrimSpace(a), "{") || strings.HasPrefix(strings.TrimSpace(a), "---"):
			src = []byte(a)
		default:
			kv := playbook.ParseKV(a)
			kv.Each(func(k string, v any) bool {
				if k != "_raw_params" {
					out.Set(k, v)
				}
				return true
			})
			continue
		}
		docs, _, err := value.DecodeYAML(name, src)
		if err != nil {
			return nil, err
		}
		if len(docs) > 0 {
			if d, ok := docs[0].(*value.Dict); ok {
				out.Update(d)
			}
		}
	}
	return out, nil
}

type config struct {
	rolesPath []string
	message   string
	// path is the config file in use ("" for none).
	path string
	// stdoutCallback is [defaults] stdout_callback or
	// ANSIBLE_STDOUT_CALLBACK.
	stdoutCallback string
	err            error
}

// pathValue is the ansible_config_file magic variable: the path or None.
func (c config) pathValue() any {
	if c.path == "" {
		return nil
	}
	return c.path
}

// loadConfig reads ANSIBLE_CONFIG or ./ansible.cfg ([defaults] roles_path
// and stdout_callback) and the environment that overrides them.
func loadConfig() config {
	c := config{message: "No config file found; using defaults", stdoutCallback: "default"}
	path := os.Getenv("ANSIBLE_CONFIG")
	if path == "" {
		if _, err := os.Stat("ansible.cfg"); err == nil {
			path, _ = filepath.Abs("ansible.cfg")
		}
	}
	if path != "" {
		if data, err := os.ReadFile(path); err == nil {
			c.path = path
			c.message = "Using " + path + " as config file"
			section := ""
			for _, line := range strings.Split(string(data), "\n") {
				line = strings.TrimSpace(line)
				if line == "" || line[0] == '#' || line[0] == ';' {
					continue
				}
				if strings.HasPrefix(line, "[") {
					section = strings.Trim(line, "[]")
					continue
				}
				k, v, ok := strings.Cut(line, "=")
				if !ok || section != "defaults" {
					continue
				}
				v = strings.TrimSpace(v)
				switch strings.TrimSpace(k) {
				case "roles_path":
					c.rolesPath = splitPaths(v, filepath.Dir(path))
				case "stdout_callback":
					c.stdoutCallback = v
				}
			}
		}
	}
	if env := os.Getenv("ANSIBLE_ROLES_PATH"); env != "" {
		cwd, _ := os.Getwd()
		c.rolesPath = splitPaths(env, cwd)
	} else if c.rolesPath == nil {
		c.rolesPath = splitPaths("~/.ansible/roles:/usr/share/ansible/roles:/etc/ansible/roles", "")
	}
	if cb, ok := os.LookupEnv("ANSIBLE_STDOUT_CALLBACK"); ok {
		c.stdoutCallback = cb
	}
	switch c.stdoutCallback {
	case "default", "ansible.builtin.default":
	case "":
		c.err = fmt.Errorf("No stdout callback name provided.")
	default:
		fmt.Fprintf(os.Stderr, "[WARNING]: The stdout callback '%s' is not available in cfzt-runner; the 'default' callback is used instead.\n", c.stdoutCallback)
	}
	return c
}

// splitPaths splits a pathspec list, expanding ~ and making relative
// entries relative to base, as ansible-core's config does.
func splitPaths(v, base string) []string {
	home, _ := os.UserHomeDir()
	var out []string
	for _, p := range filepath.SplitList(v) {
		p = strings.TrimSpace(p)
		if p == "" {
			continue
		}
		if p == "~" || strings.HasPrefix(p, "~/") {
			p = filepath.Join(home, p[1:])
		} else if !filepath.IsAbs(p) && base != "" {
			p = filepath.Join(base, p)
		}
		out = append(out, p)
	}
	return out
}

// loadInventory parses the -i sources (or ANSIBLE_INVENTORY, or
// /etc/ansible/hosts), warning as ansible-playbook does about sources it
// cannot parse and about an inventory without hosts.
func loadInventory(sources []string, disp *display.Default) *run.Inventory {
	inv := run.NewInventory()
	if len(sources) == 0 {
		if env := os.Getenv("ANSIBLE_INVENTORY"); env != "" {
			sources = strings.Split(env, ",")
		} else {
			sources = []string{"/etc/ansible/hosts"}
		}
	}
	parsed := 0
	for _, src := range sources {
		if _, err := os.Stat(src); err != nil && !strings.Contains(src, ",") {
			if src != "/etc/ansible/hosts" {
				disp.Warning("Unable to parse " + src + " as an inventory source")
			}
			continue
		}
		if err := inv.AddSource(src); err != nil {
			disp.Warning("Unable to parse " + src + " as an inventory source")
			continue
		}
		parsed++
		disp.InventoryMsgs = append(disp.InventoryMsgs, inv.ParsedMessage(src))
	}
	if parsed == 0 && envBool("ANSIBLE_INVENTORY_UNPARSED_WARNING", true) {
		disp.Warning("No inventory was parsed, only implicit localhost is available")
	}
	if len(inv.Hosts()) == 0 && envBool("ANSIBLE_LOCALHOST_WARNING", true) {
		disp.Warning("provided hosts list is empty, only localhost is available. Note that the implicit localhost does not match 'all'")
	}
	return inv
}

// envBool reads a boolean setting as ansible-core's config does.
func envBool(name string, def bool) bool {
	v, ok := os.LookupEnv(name)
	if !ok {
		return def
	}
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "0", "false", "no", "n", "off", "f":
		return false
	case "1", "true", "yes", "y", "on", "t":
		return true
	}
	return def
}
