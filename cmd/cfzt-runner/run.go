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
	startAt                          string
}

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
	fs.BoolVar(&c.diff, "D", false, "diff")
	fs.BoolVar(&c.diff, "diff", false, "diff")
	fs.BoolVar(&c.syntax, "syntax-check", false, "syntax check")
	fs.BoolVar(&c.listTasks, "list-tasks", false, "list tasks")
	fs.BoolVar(&c.listTags, "list-tags", false, "list tags")
	fs.BoolVar(&c.showVersion, "version", false, "version")
	fs.StringVar(&c.startAt, "start-at-task", "", "start at task")
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
	if err := fs.Parse(rest); err != nil {
		return nil, nil, err
	}
	return c, fs.Args(), nil
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
	reg, err := modules.NewRegistry(modules.Builtin(), k8s.Modules(), uri.Modules())
	if err != nil {
		return exitCode(err)
	}
	playbook.SetKnownModules(reg.Names())
	cfg := loadConfig()
	loader := playbook.NewLoader(reg.Resolve, cfg.rolesPath)
	disp := &display.Default{Out: os.Stdout, Err: os.Stderr, Verbose: c.verbose, Color: useColor(), ConfigMsg: cfg.message}
	extra, err := parseExtraVars(c.extra)
	if err != nil {
		return exitCode(err)
	}
	eng := template.New()
	code := 0
	for _, book := range books {
		pb, err := loader.LoadPlaybook(book)
		if err != nil {
			errDisp := &display.Default{Out: os.Stderr, Verbose: c.verbose}
			fmt.Fprint(os.Stderr, errDisp.FormatError(loadErr(err)))
			return exitCode(err)
		}
		if c.syntax {
			fmt.Printf("\nplaybook: %s\n", book)
			continue
		}
		inv := run.NewInventory()
		for _, src := range c.inventory {
			if err := inv.AddSource(src); err != nil {
				return exitCode(err)
			}
		}
		inv.AddVarsDir(pb.Dir)
		r := &run.Runner{Engine: eng, Modules: reg, Loader: loader, Display: disp, Inventory: inv, Stdout: os.Stdout,
			Opts: run.Options{Check: c.check, Diff: c.diff, Verbosity: c.verbose, Tags: splitTags(c.tags), SkipTags: splitTags(c.skipTags), StartAt: c.startAt, ExtraVars: extra}}
		if rc := r.Run(ctx, pb); rc > code {
			code = rc
		}
	}
	return code
}

// loadErr turns a LoadError into the chain the display prints.
func loadErr(err error) error {
	le, ok := err.(*playbook.LoadError)
	if !ok || le.Pos.IsZero() {
		return err
	}
	p := le.Pos
	help := le.Help
	if le.NoSource != "" {
		help = le.NoSource
	}
	return &run.ChainError{Msg: le.Msg, Origin: &p, Help: help}
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
}

// loadConfig reads ANSIBLE_CONFIG or ./ansible.cfg for roles_path.
func loadConfig() config {
	c := config{message: "No config file found; using defaults"}
	path := os.Getenv("ANSIBLE_CONFIG")
	if path == "" {
		if _, err := os.Stat("ansible.cfg"); err == nil {
			path, _ = filepath.Abs("ansible.cfg")
		}
	}
	if path != "" {
		if data, err := os.ReadFile(path); err == nil {
			c.message = "Using " + path + " as config file"
			section := ""
			for _, line := range strings.Split(string(data), "\n") {
				line = strings.TrimSpace(line)
				if strings.HasPrefix(line, "[") {
					section = strings.Trim(line, "[]")
					continue
				}
				k, v, ok := strings.Cut(line, "=")
				if ok && section == "defaults" && strings.TrimSpace(k) == "roles_path" {
					c.rolesPath = append(c.rolesPath, filepath.SplitList(strings.TrimSpace(v))...)
				}
			}
		}
	}
	if env := os.Getenv("ANSIBLE_ROLES_PATH"); env != "" {
		c.rolesPath = append(filepath.SplitList(env), c.rolesPath...)
	}
	return c
}
