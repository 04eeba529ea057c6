package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"github.com/cfzt/cfzt-runner/engine/py"
	"io"
	"os"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/template"
	"github.com/cfzt/cfzt-runner/engine/value"
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

// usageErr is a command-line error, reported with the usage as
// ansible-playbook's argument parser reports it (exit status 2).
type usageErr struct{ msg string }

func (e *usageErr) Error() string { return e.msg }

func parseArgs(args []string) (*cli, []string, error) {
	c := &cli{}
	fs := c.flagSet()
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
			return nil, nil, flagError(err, rest)
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

// flagSet registers every option of the command line on a new flag set
// that stores into c (-v is counted separately, before parsing).
func (c *cli) flagSet() *flag.FlagSet {
	fs := flag.NewFlagSet("cfzt-runner", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	fs.Usage = func() {}
	for _, name := range []string{"i", "inventory", "inventory-file"} {
		fs.Var(&c.inventory, name, "")
	}
	fs.Var(&c.extra, "e", "")
	fs.Var(&c.extra, "extra-vars", "")
	fs.Var(&c.tags, "t", "")
	fs.Var(&c.tags, "tags", "")
	fs.Var(&c.skipTags, "skip-tags", "")
	fs.BoolVar(&c.check, "C", false, "")
	fs.BoolVar(&c.check, "check", false, "")
	// ANSIBLE_DIFF_ALWAYS is ansible-core's DIFF_ALWAYS: the default of --diff.
	fs.BoolVar(&c.diff, "D", envBool("ANSIBLE_DIFF_ALWAYS", false), "")
	fs.BoolVar(&c.diff, "diff", envBool("ANSIBLE_DIFF_ALWAYS", false), "")
	fs.BoolVar(&c.syntax, "syntax-check", false, "")
	fs.BoolVar(&c.listTasks, "list-tasks", false, "")
	fs.BoolVar(&c.listTags, "list-tags", false, "")
	fs.BoolVar(&c.listHosts, "list-hosts", false, "")
	fs.BoolVar(&c.forceHandlers, "force-handlers", false, "")
	fs.BoolVar(&c.showVersion, "version", false, "")
	fs.StringVar(&c.startAt, "start-at-task", "", "")
	fs.Var(&c.limit, "l", "")
	fs.Var(&c.limit, "limit", "")
	registerCompatibilityFlags(fs)
	c.op = addOperatorFlags(fs)
	return fs
}

// registerCompatibilityFlags accepts the ansible-playbook options that
// have no effect on a local runtime: the compatibility groups of --help.
func registerCompatibilityFlags(fs *flag.FlagSet) {
	for _, g := range helpGroups[1:] {
		if g.title == "Operator Options" {
			continue
		}
		for _, o := range g.options {
			for _, n := range o.names {
				if o.metavar == "" {
					fs.Var(ignoredBool{}, strings.TrimLeft(n, "-"), "")
				} else {
					fs.Var(ignoredFlag{}, strings.TrimLeft(n, "-"), "")
				}
			}
		}
	}
}

// flagError words a flag package error as ansible-playbook's argument
// parser does; -h and --help stay flag.ErrHelp.
func flagError(err error, args []string) error {
	if errors.Is(err, flag.ErrHelp) {
		return err
	}
	msg := err.Error()
	if name, ok := strings.CutPrefix(msg, "flag needs an argument: -"); ok {
		return &usageErr{fmt.Sprintf("argument %s: expected one argument", helpNames(name))}
	}
	if name, ok := strings.CutPrefix(msg, "flag provided but not defined: -"); ok {
		for _, a := range args {
			if strings.TrimLeft(a, "-") == name {
				return &usageErr{"unrecognized arguments: " + a}
			}
		}
		return &usageErr{"unrecognized arguments: -" + name}
	}
	return &usageErr{msg}
}

func runCLI(ctx context.Context, args []string) int {
	c, books, err := parseArgs(args)
	if errors.Is(err, flag.ErrHelp) {
		writeHelp(os.Stdout)
		return 0
	}
	if err != nil {
		usageError(os.Stderr, err.Error())
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
		usageError(os.Stderr, "the following arguments are required: playbook")
		return 2
	}
	if c.op.handles() {
		return runOperator(ctx, c, c.op, books)
	}
	reg, err := newRegistry(nil)
	if err != nil {
		return exitCode(err)
	}
	cfg := loadConfig()
	disp := &display.Default{Out: os.Stdout, Err: os.Stderr, Verbose: c.verbose, Color: useColor(), ConfigMsg: cfg.message, ConfigFile: cfg.path}
	for _, w := range cfg.warnings {
		disp.Warning(w)
	}
	if cfg.err != nil {
		fmt.Fprintln(os.Stderr, "[ERROR]:", cfg.err)
		return 1
	}
	disp.Preamble()
	for _, book := range books {
		if st, err := os.Stat(book); err != nil {
			fmt.Fprintf(os.Stderr, "[ERROR]: the playbook: %s could not be found\n", book)
			return 1
		} else if st.IsDir() {
			fmt.Fprintf(os.Stderr, "[ERROR]: the playbook: %s does not appear to be a file\n", book)
			return 1
		}
	}
	extra, err := parseExtraVars(c.extra)
	if err != nil {
		return exitCode(err)
	}
	eng := template.New()
	eng.Settings = cfg.settings()
	loader := cfg.newLoader(reg, eng, extra)
	inv := loadInventory(c.inventory, disp, cfg.mergeHashes)
	inv.PatternMismatch = cfg.hostPatternMismatch
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
		Opts:       c.runOptions(cfg, extra)}
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
func (c *cli) runOptions(cfg config, extra *value.Dict) run.Options {
	return run.Options{Check: c.check, Diff: c.diff, Verbosity: c.verbose, Tags: splitTags(c.tags), SkipTags: splitTags(c.skipTags),
		StartAt: c.startAt, ExtraVars: extra, ForceHandlers: c.forceHandlers, Limit: strings.Join(c.limit, ":"),
		MergeHashes: cfg.mergeHashes, Gathering: cfg.gathering, NoInjectFacts: !cfg.injectFacts, ShowCustomStats: cfg.showCustomStats}
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

// loadInventory parses the -i sources (or ANSIBLE_INVENTORY, or
// /etc/ansible/hosts), warning as ansible-playbook does about sources it
// cannot parse and about an inventory without hosts.
// warnUnparsed warns about an inventory source no plugin could read,
// named by its absolute path (ansible-core's unfrackpath).
func warnUnparsed(disp *display.Default, src string) {
	disp.Warning("Unable to parse " + py.Abspath(py.ExpandUser(py.ExpandVars(src, os.LookupEnv), os.LookupEnv)) + " as an inventory source")
}

func loadInventory(sources []string, disp *display.Default, mergeHashes bool) *run.Inventory {
	inv := run.NewInventory()
	// Sources that set the same dict variable merge under hash_behaviour=merge.
	inv.MergeHashes = mergeHashes
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
				warnUnparsed(disp, src)
			}
			continue
		}
		if err := inv.AddSource(src); err != nil {
			warnUnparsed(disp, src)
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
	if b, known := py.LenientBoolean(v); known {
		return b
	}
	return def
}
