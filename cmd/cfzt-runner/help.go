package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// helpOption is one option as --help shows it: its names (the first is
// the one flag errors are reported under), the name of its value ("" for
// a switch) and what it does.
type helpOption struct {
	names   []string
	metavar string
	text    string
}

// helpGroup is a titled group of options, as ansible-playbook's --help
// groups them.
type helpGroup struct {
	title, description string
	options            []helpOption
}

const (
	helpUsage       = "usage: cfzt-runner [-h] [--version] [-v] [options] playbook [playbook ...]"
	helpDescription = "Runs Ansible playbooks natively, executing the defined tasks on the targeted\n" +
		"hosts; with the operator options, runs them as a Kubernetes operator."
	multipleTimes = " This argument may be specified multiple times."
)

// helpGroups lists every option cfzt-runner accepts. The first group has
// ansible-playbook's options that work here; the compatibility groups
// those accepted so that ansible-playbook command lines run unchanged;
// the last the operator's run modes.
var helpGroups = []helpGroup{
	{title: "options", options: []helpOption{
		{[]string{"-h", "--help"}, "", "show this help message and exit"},
		{[]string{"--version"}, "", "show program's version number and exit"},
		{[]string{"-v", "--verbose"}, "", "Causes cfzt-runner to print more debug messages. Adding multiple -v will increase the verbosity, as with ansible-playbook (also ANSIBLE_VERBOSITY)." + multipleTimes},
		{[]string{"-i", "--inventory", "--inventory-file"}, "INVENTORY", "specify inventory host path or comma separated host list." + multipleTimes},
		{[]string{"-e", "--extra-vars"}, "EXTRA_VARS", "set additional variables as key=value or YAML/JSON, if filename prepend with @." + multipleTimes},
		{[]string{"-l", "--limit"}, "SUBSET", "further limit selected hosts to an additional pattern"},
		{[]string{"-t", "--tags"}, "TAGS", "only run plays and tasks tagged with these values." + multipleTimes},
		{[]string{"--skip-tags"}, "SKIP_TAGS", "only run plays and tasks whose tags do not match these values." + multipleTimes},
		{[]string{"-C", "--check"}, "", "don't make any changes; instead, try to predict some of the changes that may occur"},
		{[]string{"-D", "--diff"}, "", "when changing (small) files and templates, show the differences in those files; works great with --check"},
		{[]string{"--syntax-check"}, "", "perform a syntax check on the playbook, but do not execute it"},
		{[]string{"--list-tasks"}, "", "list all tasks that would be executed"},
		{[]string{"--list-tags"}, "", "list all available tags"},
		{[]string{"--list-hosts"}, "", "outputs a list of matching hosts; does not execute anything else"},
		{[]string{"--list-unsupported"}, "", "list every task whose module, lookup, filter or test cfzt-runner does not implement (exit status 1 when there is any); --syntax-check fails on them too"},
		{[]string{"--start-at-task"}, "START_AT_TASK", "start the playbook at the task matching this name"},
		{[]string{"--force-handlers"}, "", "run handlers even if a task fails"},
		{[]string{"--step"}, "", "one-step-at-a-time: confirm each task before running (the answers are read from standard input)"},
		{[]string{"--vault-id"}, "VAULT_IDS", "the vault identity to use (label@file; a file that is executable is run for the password)." + multipleTimes},
		{[]string{"--vault-password-file", "--vault-pass-file"}, "PASSWORD_FILE", "vault password file (run when executable)"},
		{[]string{"-J", "--ask-vault-password", "--ask-vault-pass"}, "", "ask for vault password; refused, cfzt-runner never prompts: use a password file"},
	}},
	{title: "Connection Options", description: "only the local connection runs; a host needing another is unreachable", options: []helpOption{
		{[]string{"-c", "--connection"}, "CONNECTION", "connection type to use; anything but local makes the hosts that set none unreachable"},
		{[]string{"-u", "--user"}, "REMOTE_USER", "connect as this user"},
		{[]string{"-T", "--timeout"}, "TIMEOUT", "override the connection timeout in seconds"},
		{[]string{"--private-key", "--key-file"}, "PRIVATE_KEY_FILE", "use this file to authenticate the connection"},
		{[]string{"-k", "--ask-pass"}, "", "ask for connection password"},
		{[]string{"--connection-password-file"}, "CONNECTION_PASSWORD_FILE", "Connection password file"},
		{[]string{"--ssh-common-args"}, "SSH_COMMON_ARGS", "specify common arguments to pass to sftp/scp/ssh"},
		{[]string{"--ssh-extra-args"}, "SSH_EXTRA_ARGS", "specify extra arguments to pass to ssh only"},
		{[]string{"--scp-extra-args"}, "SCP_EXTRA_ARGS", "specify extra arguments to pass to scp only"},
		{[]string{"--sftp-extra-args"}, "SFTP_EXTRA_ARGS", "specify extra arguments to pass to sftp only"},
	}},
	{title: "Privilege Escalation Options", description: "tasks run as the invoking user; becoming another user fails the task", options: []helpOption{
		{[]string{"-b", "--become"}, "", "run operations with become"},
		{[]string{"--become-method"}, "BECOME_METHOD", "privilege escalation method to use"},
		{[]string{"--become-user"}, "BECOME_USER", "run operations as this user"},
		{[]string{"-K", "--ask-become-pass"}, "", "ask for privilege escalation password"},
		{[]string{"--become-password-file"}, "BECOME_PASSWORD_FILE", "Become password file"},
	}},
	{title: "Other Compatibility Options", description: "accepted so that ansible-playbook command lines run unchanged", options: []helpOption{
		{[]string{"-f", "--forks"}, "FORKS", "specify number of parallel processes to use; hosts run in turn, and plays see it in ansible_forks"},
		{[]string{"-M", "--module-path"}, "MODULE_PATH", "prepend colon-separated path(s) to module library; modules are built in"},
		{[]string{"--flush-cache"}, "", "clear the fact cache for every host in inventory"},
	}},
	{title: "Operator Options", description: "run the playbook as a Kubernetes operator, reloading it each cycle", options: []helpOption{
		{[]string{"--interval"}, "SECONDS", "re-run the playbook every SECONDS (or a duration such as 90s); 0 runs once"},
		{[]string{"--watch"}, "", "run a cycle on changes to the kinds the playbook reads with k8s_info; without --interval, resync every POLL_INTERVAL_SECONDS when set"},
		{[]string{"--watch-kind"}, "GROUP/VERSION/KIND", "watch this kind instead of the playbook's k8s_info kinds." + multipleTimes},
		{[]string{"--watch-by-name"}, "GROUP/VERSION/KIND", "kind whose objects the playbook reads by name are watched one by one, status changes included (default v1/Service and apps/v1/Deployment)." + multipleTimes},
		{[]string{"--watch-status-kind"}, "KIND", "kind whose status-only updates start a cycle (default CloudflareTask)." + multipleTimes},
		{[]string{"--debounce"}, "DURATION", "quiet window after a change before a cycle starts (default 300ms)"},
		{[]string{"--debounce-max"}, "DURATION", "longest wait from the first change of a burst (default 1s)"},
		{[]string{"--backoff-base"}, "DURATION", "first retry delay after a failed cycle in watch mode (default 1s)"},
		{[]string{"--backoff-max"}, "DURATION", "longest wait after repeated failed cycles (default 5m)"},
		{[]string{"--grace"}, "DURATION", "on SIGTERM/SIGINT, how long the running task may take to finish (default 30s)"},
		{[]string{"--leader-elect"}, "", "run cycles only while holding a coordination.k8s.io Lease (default on when REPLICAS > 1)"},
		{[]string{"--leader-elect-id"}, "NAME", "name of the leader Lease (default cfzt-ROLE)"},
		{[]string{"--leader-elect-namespace"}, "NAMESPACE", "namespace of the leader Lease (default OPERATOR_NAMESPACE, else cloudflare-zero-trust)"},
		{[]string{"--leader-elect-lease-duration"}, "DURATION", "how long followers wait before taking over an unrenewed Lease (default 15s)"},
		{[]string{"--leader-elect-renew-deadline"}, "DURATION", "how long the leader retries renewing before it gives up (default 10s)"},
		{[]string{"--leader-elect-retry-period"}, "DURATION", "interval between Lease attempts (default 2s)"},
		{[]string{"--metrics-addr"}, "ADDR", "serve /healthz, /readyz and /metrics on this address (e.g. :8080)"},
		{[]string{"--log-format"}, "FORMAT", "text (Ansible's output) or json (one event per line; a single run may use it too)"},
	}},
}

// Layout of argparse's help formatter on an 80-column terminal.
const (
	helpColumn = 24
	helpWidth  = 78
)

// writeHelp prints --help: usage, description, the playbook argument and
// each group of options, sorted as ansible-playbook sorts them.
func writeHelp(w io.Writer) {
	fmt.Fprintf(w, "%s\n\n%s\n\npositional arguments:\n", helpUsage, helpDescription)
	writeHelpEntry(w, "playbook", "Playbook(s)")
	writeSubcommands(w)
	for _, g := range helpGroups {
		fmt.Fprintf(w, "\n%s:\n", g.title)
		if g.description != "" {
			fmt.Fprintf(w, "  %s\n\n", g.description)
		}
		opts := append([]helpOption{}, g.options...)
		sort.SliceStable(opts, func(i, j int) bool { return opts[i].names[0] < opts[j].names[0] })
		for _, o := range opts {
			writeHelpEntry(w, o.invocation(), o.text)
		}
	}
}

// invocation is how an option is shown: each name, with the value's name.
func (o helpOption) invocation() string {
	parts := make([]string, len(o.names))
	for i, n := range o.names {
		parts[i] = n
		if o.metavar != "" {
			parts[i] += " " + o.metavar
		}
	}
	return strings.Join(parts, ", ")
}

// writeHelpEntry prints one entry: the invocation, then its text wrapped
// at the help column, on the same line when the invocation fits.
func writeHelpEntry(w io.Writer, invocation, text string) {
	writeHelpEntryAt(w, "  ", invocation, text)
}

// writeHelpEntryAt is writeHelpEntry with the invocation after indent
// (argparse indents a subcommand's name by four).
func writeHelpEntryAt(w io.Writer, indent, invocation, text string) {
	lines := wrapWords(text, helpWidth-helpColumn)
	head := indent + invocation
	if len(head) <= helpColumn-2 && len(lines) > 0 {
		fmt.Fprintf(w, "%-*s%s\n", helpColumn, head, lines[0])
		lines = lines[1:]
	} else {
		fmt.Fprintln(w, head)
	}
	for _, l := range lines {
		fmt.Fprintf(w, "%*s%s\n", helpColumn, "", l)
	}
}

// wrapWords splits text into lines of at most width characters.
func wrapWords(text string, width int) []string {
	var lines []string
	line := ""
	for _, word := range strings.Fields(text) {
		if line != "" && len(line)+1+len(word) > width {
			lines = append(lines, line)
			line = ""
		}
		if line != "" {
			line += " "
		}
		line += word
	}
	if line != "" {
		lines = append(lines, line)
	}
	return lines
}

// helpNames maps every option name to the invocation names argparse
// would report it under, e.g. "-i/--inventory/--inventory-file".
func helpNames(name string) string {
	for _, g := range helpGroups {
		for _, o := range g.options {
			for _, n := range o.names {
				if strings.TrimLeft(n, "-") == name {
					return strings.Join(o.names, "/")
				}
			}
		}
	}
	return "-" + name
}

// usageError prints a command-line error as ansible-playbook's argument
// parser does: usage, the error, then the full help, on stderr.
func usageError(w io.Writer, msg string) {
	fmt.Fprintf(w, "%s\ncfzt-runner: error: %s\n \n", helpUsage, msg)
	writeHelp(w)
}

// helpSubcommand is a subcommand as --help lists it. Every subcommand a
// user may type (runSubcommand in sdkoperator.go) is here; the internal
// ones the binary runs itself (the async job child, the argument
// validator of Python modules) are left out, as argparse hides a
// suppressed choice.
type helpSubcommand struct{ name, text string }

var helpSubcommands = []helpSubcommand{
	{"doc", "ansible-doc for what cfzt-runner implements: -l lists the modules (-t filter|lookup|test the template plugins), MODULE shows the options it validates"},
	{"operator", "run as the operator-sdk Ansible operator, as `ansible-operator run` does: reconcile the kinds of watches.yaml with their roles or playbooks (docs/ansible-operator.md)"},
	{"vault", "ansible-vault's view and encrypt_string"},
}

// writeSubcommands prints the subcommands as argparse prints a group of
// subparsers: the choices in braces, then each one indented by four.
func writeSubcommands(w io.Writer) {
	names := make([]string, len(helpSubcommands))
	for i, s := range helpSubcommands {
		names[i] = s.name
	}
	fmt.Fprintf(w, "\nsubcommands:\n  cfzt-runner SUBCOMMAND --help shows a subcommand's options\n\n  {%s}\n", strings.Join(names, ","))
	for _, s := range helpSubcommands {
		writeHelpEntryAt(w, "    ", s.name, s.text)
	}
}

// isHelpFlag reports whether arg asks for help.
func isHelpFlag(arg string) bool {
	return arg == "-h" || arg == "--help" || arg == "-help"
}

// subcommandHelp answers a request for a subcommand's help on stdout:
// `operator [run] --help`, `vault --help` and `vault view|encrypt_string
// --help`. ok is false when args ask for no such help.
func subcommandHelp(args []string, stdout io.Writer) (code int, ok bool) {
	if len(args) < 2 {
		return 0, false
	}
	wantsHelp := func(rest []string) bool {
		for _, a := range rest {
			if a == "--" {
				return false
			}
			if isHelpFlag(a) {
				return true
			}
		}
		return false
	}
	switch args[0] {
	case "operator":
		rest := args[1:]
		if rest[0] == "run" {
			rest = rest[1:]
		}
		if !wantsHelp(rest) {
			return 0, false
		}
		fs, _ := sdkFlagSet(io.Discard)
		writeFlagSetHelp(stdout, "usage: cfzt-runner operator [run] [-h] [--FLAG VALUE ...]",
			"Runs the operator-sdk Ansible operator (ansible-operator run): reconciles\n"+
				"each kind of the watches file with its role or playbook, run natively.\n"+
				"Flags take one dash or two, as ansible-operator's do. See\n"+
				"docs/ansible-operator.md.", fs)
		return 0, true
	case "vault":
		if (args[1] == "view" || args[1] == "encrypt_string") && wantsHelp(args[2:]) {
			fs, _ := vaultFlagSet(args[1], io.Discard)
			what := map[string]string{
				"view":           "usage: cfzt-runner vault view [-h] [options] FILE [FILE ...]\n\nPrints the plaintext of vault-encrypted files.",
				"encrypt_string": "usage: cfzt-runner vault encrypt_string [-h] [options] STRING\n\nPrints a !vault value for STRING, encrypted with the first vault secret\n(or --encrypt-vault-id's).",
			}[args[1]]
			usage, description, _ := strings.Cut(what, "\n\n")
			writeFlagSetHelp(stdout, usage, description, fs)
			return 0, true
		}
		if isHelpFlag(args[1]) {
			fmt.Fprintf(stdout, "usage: cfzt-runner vault [-h] {view,encrypt_string} ...\n\n"+
				"A small part of ansible-vault, with the vault secrets given as to a run.\n\n"+
				"positional arguments:\n  {view,encrypt_string}\n")
			writeHelpEntryAt(stdout, "    ", "view", "print the plaintext of vault-encrypted files")
			writeHelpEntryAt(stdout, "    ", "encrypt_string", "print a !vault value for a string")
			fmt.Fprintf(stdout, "\noptions:\n")
			writeHelpEntry(stdout, "-h, --help", "show this help message and exit")
			return 0, true
		}
	}
	return 0, false
}

// writeFlagSetHelp prints a Go flag set in argparse's layout: usage,
// description, then each flag with its value's name and its default.
func writeFlagSetHelp(out io.Writer, usage, description string, fs *flag.FlagSet) {
	fmt.Fprintf(out, "%s\n\n%s\n\noptions:\n", usage, description)
	writeHelpEntry(out, "-h, --help", "show this help message and exit")
	fs.VisitAll(func(f *flag.Flag) {
		inv := "--" + f.Name
		isBool := false
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			isBool = true
		} else {
			inv += " " + strings.ToUpper(strings.ReplaceAll(f.Name, "-", "_"))
		}
		text := f.Usage
		if f.DefValue != "" && !(isBool && f.DefValue == "false") && f.DefValue != "0" {
			text += " (default " + f.DefValue + ")"
		}
		writeHelpEntry(out, inv, text)
	})
}
