package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/cfzt/cfzt-runner/engine/config"
	"github.com/cfzt/cfzt-runner/engine/diag"
	"github.com/cfzt/cfzt-runner/engine/display"
	"github.com/cfzt/cfzt-runner/engine/playbook"
	"github.com/cfzt/cfzt-runner/engine/py"
	"github.com/cfzt/cfzt-runner/engine/run"
	"github.com/cfzt/cfzt-runner/engine/session"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/cfzt/cfzt-runner/engine/vault"
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
	vaultIDs, vaultFiles             multi
	askVault                         bool
	connection                       string
	become                           bool
	becomeUser, becomeMethod         string
	op                               *operatorFlags // operator runtime (operator.go)
	cfg                              *config.Config

	// step is --step; forksGiven is set when -f was given;
	// listUnsupported is --list-unsupported.
	step, forksGiven, listUnsupported bool
	// becomePassFile and connPassFile are --become-password-file and
	// --connection-password-file: read (and checked) as ansible-playbook
	// reads them.
	becomePassFile, connPassFile string
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

// parseArgs reads the command line, and the configuration (ansible.cfg
// and ANSIBLE_*) that gives some options their defaults.
func parseArgs(args []string) (*cli, []string, error) {
	c := &cli{cfg: config.Load(config.Process())}
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
	if c.forksGiven && c.cfg != nil && c.cfg.Forks < 1 {
		return nil, nil, &usageErr{"The number of processes (--forks) must be >= 1"}
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
	// DIFF_ALWAYS is the default of --diff.
	diffAlways := c.cfg != nil && c.cfg.DiffAlways
	fs.BoolVar(&c.diff, "D", diffAlways, "")
	fs.BoolVar(&c.diff, "diff", diffAlways, "")
	fs.BoolVar(&c.syntax, "syntax-check", false, "")
	fs.BoolVar(&c.listTasks, "list-tasks", false, "")
	fs.BoolVar(&c.listTags, "list-tags", false, "")
	fs.BoolVar(&c.listHosts, "list-hosts", false, "")
	fs.BoolVar(&c.forceHandlers, "force-handlers", false, "")
	fs.BoolVar(&c.showVersion, "version", false, "")
	fs.StringVar(&c.startAt, "start-at-task", "", "")
	fs.BoolVar(&c.step, "step", false, "")
	fs.BoolVar(&c.listUnsupported, "list-unsupported", false, "")
	fs.StringVar(&c.becomePassFile, "become-password-file", "", "")
	fs.StringVar(&c.connPassFile, "connection-password-file", "", "")
	fs.Var(&c.vaultIDs, "vault-id", "")
	fs.Var(&c.vaultFiles, "vault-password-file", "")
	fs.Var(&c.vaultFiles, "vault-pass-file", "")
	for _, name := range []string{"J", "ask-vault-password", "ask-vault-pass"} {
		fs.BoolVar(&c.askVault, name, false, "")
	}
	// -c and -b are honoured, honestly: a connection other than local is
	// an unreachable host, a become to another user a failed task.
	fs.StringVar(&c.connection, "c", "", "")
	fs.StringVar(&c.connection, "connection", "", "")
	fs.BoolVar(&c.become, "b", false, "")
	fs.BoolVar(&c.become, "become", false, "")
	fs.StringVar(&c.becomeUser, "become-user", "", "")
	fs.StringVar(&c.becomeMethod, "become-method", "", "")
	fs.Var(&c.limit, "l", "")
	fs.Var(&c.limit, "limit", "")
	// -f/--forks: hosts still run in turn, but plays see the number in
	// ansible_forks, as with the forks setting.
	for _, name := range []string{"f", "forks"} {
		fs.Func(name, "", c.setForks)
	}
	registerCompatibilityFlags(fs)
	c.op = addOperatorFlags(fs)
	return fs
}

// setForks takes -f/--forks over the forks setting.
func (c *cli) setForks(s string) error {
	n, err := strconv.Atoi(s)
	if err != nil {
		// ansible-core's argparse type for -f is named tag_value.
		return fmt.Errorf("invalid tag_value value: '%s'", s)
	}
	if c.cfg != nil {
		c.cfg.Forks = n
	}
	c.forksGiven = true
	return nil
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
				if fs.Lookup(strings.TrimLeft(n, "-")) != nil {
					continue // it has an effect after all (-f)
				}
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
	if rest, ok := strings.CutPrefix(msg, "invalid value "); ok {
		// invalid value "x" for flag -f: why
		if _, after, found := strings.Cut(rest, " for flag -"); found {
			if name, why, found := strings.Cut(after, ": "); found {
				return &usageErr{fmt.Sprintf("argument %s: %s", helpNames(name), why)}
			}
		}
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
		writeVersion(os.Stdout, c.cfg)
		return 0
	}
	cfg := c.cfg
	if cfg.VerbositySet && c.verbose == 0 {
		c.verbose = cfg.Verbosity
	}
	if len(books) == 0 {
		usageError(os.Stderr, "the following arguments are required: playbook")
		return 2
	}
	if c.op.handles() {
		return runOperator(ctx, c, cfg, books)
	}
	it := startInterrupt()
	return it.finish(runPlain(it, c, cfg, books))
}

// runPlain is a one-shot run of books, stopped by it on SIGINT or SIGTERM.
func runPlain(it *interrupt, c *cli, cfg *config.Config, books []string) int {
	ctx := it.ctx
	comp, err := compose(composeOptions{Mode: modeRun, Config: cfg, Inventory: c.inventory, Direct: os.Stdout})
	if err != nil {
		return startupError(err)
	}
	// log_path: what the display shows is logged too.
	var logFile *display.Log
	if cfg.LogPath != "" {
		logFile = display.OpenLog(cfg.LogPath, os.Stderr)
		defer logFile.Close()
	}
	disp := textDisplay(cfg, c.verbose, it.gated(logFile.Tee(os.Stdout, false)), it.gated(logFile.Tee(os.Stderr, true)))
	disp.Style = stdoutStyle(cfg)
	disp.VersionBlock = versionBlock(cfg)
	for _, w := range cfg.Warnings {
		disp.Warn(diag.Warn(w, nil))
	}
	if d := cfg.CallbackDeprecation(); d != nil {
		disp.Warn(d)
	}
	if cfg.Err != nil {
		return startupError(cfg.Err)
	}
	rdisp := c.withCallbacks(disp, cfg)
	disp.Preamble()
	for _, book := range books {
		if st, err := os.Stat(book); err != nil {
			return startupError(fmt.Errorf("the playbook: %s could not be found", book))
		} else if st.IsDir() {
			return startupError(fmt.Errorf("the playbook: %s does not appear to be a file", book))
		}
	}
	if !(c.syntax || c.listTasks || c.listTags || c.listHosts || c.listUnsupported) {
		// The passwords are read (and an unreadable or empty file is an
		// error) before anything loads; become and connection handle them.
		for _, f := range []string{c.connPassFile, c.becomePassFile} {
			if f != "" {
				// The options are unfrack_path options: the file is named
				// by its absolute path.
				if abs, err := filepath.Abs(py.ExpandUser(f, os.LookupEnv)); err == nil && f != "-" {
					f = abs
				}
				if _, err := readPasswordFile(f); err != nil {
					return startupError(err)
				}
			}
		}
	}
	keyring, err := c.vaultSecrets(disp)
	if err != nil {
		return startupError(err)
	}
	extra, err := parseExtraVars(c.extra, keyring)
	if err != nil {
		return startupError(err)
	}
	opts := c.runOptions(extra)
	if c.step {
		opts.Step = newStepper(os.Stdin, os.Stdout).Step
	}
	sess := comp.Session
	sess.Vault = keyring
	r, err := sess.Load(books, opts, rdisp)
	if err != nil {
		fmt.Fprint(os.Stderr, (&display.Default{}).FormatError(err))
		return diag.ExitCode(err)
	}
	disp.InventoryMsgs = r.InventoryParsed
	defer r.Close() // the listings' templates may have started a Python plugin helper
	switch {
	case c.listUnsupported:
		return listUnsupported(os.Stdout, r)
	case c.syntax:
		for _, pb := range r.Playbooks {
			fmt.Printf("\nplaybook: %s\n", pb.Arg)
		}
		return reportUnsupported(os.Stderr, r)
	case c.listTasks || c.listTags || c.listHosts:
		for _, pb := range r.Playbooks {
			r.Inventory.AddVarsDir(pb.Dir)
			run.ListPlaybook(os.Stdout, pb, r.Inventory, run.ListOptions{Tasks: c.listTasks, Tags: c.listTags, Hosts: c.listHosts,
				OnlyTags: splitTags(c.tags), SkipTags: splitTags(c.skipTags), Limit: strings.Join(c.limit, ":")})
		}
		return 0
	}
	return r.Execute(ctx, rdisp, nil, nil)
}

// withCallbacks is the display of a run: disp, or the json stdout
// callback beside it, with the callbacks_enabled aggregate callbacks
// (warning about those cfzt-runner cannot load).
func (c *cli) withCallbacks(disp *display.Default, cfg *config.Config) run.Display {
	var main run.Display = disp
	if cfg.StdoutCallback == "ansible.posix.json" {
		main = &display.PosixJSON{Messages: disp, Out: disp.Out, Indent: cfg.JSONIndent}
	}
	aggs, warns := display.NewAggregates(cfg.CallbacksEnabled, display.CallbackOptions{Out: disp.Out, Verbose: c.verbose,
		ProfileTasksLimit: cfg.ProfileTasksLimit, ProfileTasksSort: cfg.ProfileTasksSort,
		ProfileTasksSummaryOnly: cfg.ProfileTasksSummaryOnly, ProfileRolesSummaryOnly: cfg.ProfileRolesSummaryOnly})
	for _, w := range warns {
		disp.Warn(w)
	}
	if len(aggs) == 0 {
		return main
	}
	return &display.WithAggregates{Display: main, Aggregates: aggs}
}

// runOptions are the executor options the command line selects, shared by
// the one-shot run and the operator loop; the session adds the
// configuration's.
func (c *cli) runOptions(extra *value.Dict) run.Options {
	o := c.runOptionsFlags(extra)
	// ANSIBLE_BECOME, ANSIBLE_BECOME_USER and ANSIBLE_TRANSPORT (or
	// ansible.cfg) give the defaults the options override.
	if c.cfg != nil {
		e := c.cfg.Escalation
		if !o.Become && e.Become {
			o.Become, o.BecomeFrom = true, "the become setting (ANSIBLE_BECOME)"
		}
		if o.BecomeUser == "" && e.BecomeUser != "" {
			o.BecomeUser, o.BecomeUserFrom = e.BecomeUser, "the become_user setting (ANSIBLE_BECOME_USER)"
		}
		if o.Connection == "" && e.Transport != "" && e.Transport != "smart" {
			o.Connection, o.ConnectionFrom = e.Transport, "the transport setting (ANSIBLE_TRANSPORT)"
		}
	}
	return o
}

// runOptionsFlags are the executor options of the command line's flags.
func (c *cli) runOptionsFlags(extra *value.Dict) run.Options {
	return run.Options{Check: c.check, Diff: c.diff, Verbosity: c.verbose, Tags: splitTags(c.tags), SkipTags: splitTags(c.skipTags),
		StartAt: c.startAt, ExtraVars: extra, ForceHandlers: c.forceHandlers, Limit: strings.Join(c.limit, ":"),
		Connection: c.connection, Become: c.become, BecomeUser: c.becomeUser, BecomeMethod: c.becomeMethod}
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

// parseExtraVars handles k=v, JSON/YAML and @file forms of -e; a
// vault-encrypted @file is decrypted with keyring.
func parseExtraVars(args multi, keyring *vault.Keyring) (*value.Dict, error) {
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
			if vault.IsEncrypted(data) {
				if data, err = keyring.Decrypt(data); err != nil {
					return nil, err
				}
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

// findUnsupported lists the tasks of the loaded playbooks that use what
// cfzt-runner does not implement.
// findUnsupported lists what the playbooks use that cfzt-runner does not
// implement; with includes, the files that dynamic includes name without
// a template are searched too (--list-unsupported; --syntax-check, as
// ansible-playbook's, loads only what is static).
func findUnsupported(r *session.Run, includes bool) []run.Unsupported {
	var ld *playbook.Loader
	if includes {
		ld = r.Loader
	}
	var out []run.Unsupported
	for _, pb := range r.Playbooks {
		out = append(out, run.FindUnsupported(r.Engine, pb, ld)...)
	}
	return out
}

// listUnsupported is --list-unsupported: every task whose module,
// lookup, filter or test cfzt-runner does not implement, with its file
// and line; the exit status is 1 when there is any.
func listUnsupported(w io.Writer, r *session.Run) int {
	found := findUnsupported(r, true)
	for _, u := range found {
		fmt.Fprintln(w, u.String())
	}
	if len(found) == 0 {
		fmt.Fprintln(w, "Every module, lookup, filter and test the playbooks use is implemented.")
		return 0
	}
	return diag.ExitFailure
}

// reportUnsupported completes --syntax-check: its output is
// ansible-playbook's, and tasks using what cfzt-runner does not implement
// are an error after it (exit status 1).
func reportUnsupported(w io.Writer, r *session.Run) int {
	found := findUnsupported(r, false)
	if len(found) == 0 {
		return 0
	}
	fmt.Fprintln(w, "[ERROR]: cfzt-runner does not implement what these tasks use:")
	for _, u := range found {
		fmt.Fprintln(w, "  "+u.String())
	}
	return diag.ExitFailure
}

// stdoutStyle is the Default display's Style for the stdout callback.
func stdoutStyle(cfg *config.Config) string {
	switch cfg.StdoutCallback {
	case "ansible.builtin.minimal":
		return "minimal"
	case "ansible.builtin.oneline":
		return "oneline"
	}
	return ""
}
