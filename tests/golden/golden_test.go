// Package golden runs the golden corpus: small playbooks whose stdout,
// stderr and exit code were recorded from the real ansible-playbook
// (hack/record-goldens.sh) and must be reproduced by cfzt-runner. No Ansible
// is needed at test time. See README.md in this directory.
package golden

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/testbin"
)

var (
	runnerBin string // cfzt-runner built by TestMain
	homeDir   string // the fixed HOME of every run
)

func TestMain(m *testing.M) {
	os.Exit(runMain(m))
}

func runMain(m *testing.M) int {
	tmp, err := os.MkdirTemp("", "cfzt-golden-home.*")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(tmp)
	homeDir = tmp
	// CFZT_RUNNER names a prebuilt binary, to iterate without a rebuild
	// per run.
	if runnerBin, err = testbin.Runner(tmp); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return m.Run()
}

// TestGolden runs every case under cases/ and compares its stdout, stderr
// and exit code with the recording, after normalize.
func TestGolden(t *testing.T) {
	dirs, err := filepath.Glob(filepath.Join("cases", "*", "expected.rc"))
	if err != nil {
		t.Fatal(err)
	}
	if len(dirs) == 0 {
		t.Fatal("no recorded cases under cases/")
	}
	known, err := knownFailures("KNOWN_FAILURES.md")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(dirs)
	for _, rc := range dirs {
		dir := filepath.Dir(rc)
		name := filepath.Base(dir)
		t.Run(name, func(t *testing.T) {
			if why, ok := known[name]; ok && os.Getenv("CFZT_GOLDEN_RUN_KNOWN") == "" {
				t.Skip("KNOWN_FAILURES: " + why)
			}
			if why := unmetRequirement(dir); why != "" {
				t.Skip(why)
			}
			if needsRoot(dir) {
				// Cases that make real accounts run one at a time (useradd
				// and groupadd lock /etc/passwd and /etc/group), after the
				// leftovers of an earlier interrupted run are removed.
				removeLeftoverAccounts(t, dir)
			} else {
				t.Parallel()
			}
			runCase(t, dir)
		})
	}
}

// unmetRequirement reads a case's optional `requires` file, one need a
// line: `root` (the case creates real users and groups) or a command
// that must be on PATH (`dpkg-query`). It returns why the case cannot run
// here, or "".
func unmetRequirement(dir string) string {
	data, err := os.ReadFile(filepath.Join(dir, "requires"))
	if err != nil {
		return ""
	}
	for _, need := range strings.Fields(string(data)) {
		switch {
		case need == "root":
			if os.Geteuid() != 0 {
				return "the case needs root (requires: root)"
			}
		default:
			if _, err := exec.LookPath(need); err != nil {
				return "the case needs " + need + " on PATH (requires)"
			}
		}
	}
	return ""
}

// needsRoot reports whether a case's requires file names root: it makes
// real users and groups.
func needsRoot(dir string) bool {
	data, err := os.ReadFile(filepath.Join(dir, "requires"))
	return err == nil && slices.Contains(strings.Fields(string(data)), "root")
}

// leftoverAccount matches the throwaway account names the root cases use.
var leftoverAccount = regexp.MustCompile(`\bcfzt-(?:golden|getent)-[a-z0-9-]*[a-z0-9]\b`)

// removeLeftoverAccounts deletes the throwaway users and groups a root case
// names when they already exist: a run killed half-way (a timeout on a
// loaded machine) leaves them behind, and the case's recorded output
// assumes they do not exist. Only names of the cfzt-golden-/cfzt-getent-
// families are ever touched.
func removeLeftoverAccounts(t *testing.T, dir string) {
	data, err := os.ReadFile(filepath.Join(dir, "playbook.yml"))
	if err != nil {
		return
	}
	names := leftoverAccount.FindAllString(string(data), -1)
	slices.Sort(names)
	for _, name := range slices.Compact(names) {
		if exec.Command("getent", "passwd", name).Run() == nil {
			if out, err := exec.Command("userdel", "-r", "-f", name).CombinedOutput(); err != nil {
				t.Logf("removing leftover user %s: %v: %s", name, err, out)
			}
		}
		if exec.Command("getent", "group", name).Run() == nil {
			if out, err := exec.Command("groupdel", name).CombinedOutput(); err != nil {
				t.Logf("removing leftover group %s: %v: %s", name, err, out)
			}
		}
	}
}

// timingAttempts is how many times a case with a `timing` file runs
// before its differences count: its output depends on when a background
// job ends relative to a poll (async), which a loaded machine can shift.
const timingAttempts = 3

func runCase(t *testing.T, dir string) {
	attempts := 1
	if _, err := os.Stat(filepath.Join(dir, "timing")); err == nil {
		attempts = timingAttempts
	}
	var failure string
	for i := 0; i < attempts; i++ {
		if failure = runCaseOnce(t, dir); failure == "" {
			return
		}
	}
	t.Error(failure)
}

// runCaseOnce runs a case and returns how its result differs from the
// oracle's, or "".
func runCaseOnce(t *testing.T, dir string) string {
	wantRC, err := readRC(filepath.Join(dir, "expected.rc"))
	if err != nil {
		t.Fatal(err)
	}
	wantOut := readFile(t, filepath.Join(dir, "expected.out"))
	wantErr := readFile(t, filepath.Join(dir, "expected.err"))

	args, err := caseArgs(dir)
	if err != nil {
		t.Fatal(err)
	}
	env, err := caseEnv(dir)
	if err != nil {
		t.Fatal(err)
	}
	var stdout, stderr strings.Builder
	cmd := exec.Command(runnerBin, args...)
	cmd.Dir = dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	cmd.WaitDelay = time.Second
	gotRC := 0
	timer := time.AfterFunc(2*time.Minute, func() { _ = cmd.Process.Kill() })
	err = cmd.Run()
	timer.Stop()
	if ee, ok := err.(*exec.ExitError); ok {
		gotRC = ee.ExitCode()
	} else if err != nil {
		t.Fatal(err)
	}

	var problems []string
	if gotRC != wantRC {
		problems = append(problems, fmt.Sprintf("exit code: want %d, got %d", wantRC, gotRC))
	}
	if d := lineDiff(normalize(wantOut), normalize(stdout.String())); d != "" {
		problems = append(problems, "stdout (- oracle, + cfzt-runner):\n"+d)
	}
	if d := lineDiff(normalize(wantErr), normalize(stderr.String())); d != "" {
		problems = append(problems, "stderr (- oracle, + cfzt-runner):\n"+d)
	}
	if len(problems) == 0 {
		return ""
	}
	return fmt.Sprintf("case %s: cd %s && %s %s\n%s", filepath.Base(dir), dir, runnerBin,
		strings.Join(args, " "), strings.Join(problems, "\n"))
}

// caseArgs mirrors case_args in hack/record-goldens.sh.
func caseArgs(dir string) ([]string, error) {
	extra, err := readLines(filepath.Join(dir, "args"))
	if err != nil {
		return nil, err
	}
	var args []string
	hasInventory := false
	for _, a := range extra {
		if a == "-i" || a == "--inventory" || strings.HasPrefix(a, "--inventory=") ||
			(strings.HasPrefix(a, "-i") && len(a) > 2) {
			hasInventory = true
		}
	}
	if !hasInventory {
		args = append(args, "-i", "localhost,")
	}
	args = append(args, extra...)
	return append(args, "playbook.yml"), nil
}

// caseEnv mirrors case_env in hack/record-goldens.sh.
func caseEnv(dir string) ([]string, error) {
	env := []string{
		"PATH=/usr/local/bin:/usr/bin:/bin",
		"HOME=" + homeDir,
		"ANSIBLE_LOCAL_TEMP=" + filepath.Join(homeDir, ".ansible", "tmp"),
		"ANSIBLE_NOCOLOR=1",
		"ANSIBLE_STDOUT_CALLBACK=default",
		"ANSIBLE_LOCALHOST_WARNING=False",
		"ANSIBLE_INVENTORY_UNPARSED_WARNING=False",
		"ANSIBLE_FORKS=1",
		"LC_ALL=C.UTF-8",
		"TZ=UTC",
		"GOLDEN_LOOKUP_VAR=value-from-environment",
		"GOLDEN_EMPTY_VAR=",
	}
	extra, err := readLines(filepath.Join(dir, "env"))
	if err != nil {
		return nil, err
	}
	return append(env, extra...), nil
}

// readLines returns the meaningful lines of an optional case file: blank
// lines and lines starting with # are dropped; a missing file is empty.
func readLines(path string) ([]string, error) {
	f, err := os.Open(path)
	if os.IsNotExist(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		out = append(out, line)
	}
	return out, sc.Err()
}

func readFile(t *testing.T, path string) string {
	b, err := os.ReadFile(path)
	if err != nil && !os.IsNotExist(err) {
		t.Fatal(err)
	}
	return string(b)
}

func readRC(path string) (int, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return 0, err
	}
	return strconv.Atoi(strings.TrimSpace(string(b)))
}

// knownFailures reads the case names listed as "## name" headings in path,
// with the first line of each entry's text as the reason.
func knownFailures(path string) (map[string]string, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return map[string]string{}, nil
	}
	if err != nil {
		return nil, err
	}
	var lines []string
	for _, l := range strings.Split(string(b), "\n") {
		if strings.TrimSpace(l) != "" {
			lines = append(lines, l)
		}
	}
	out := map[string]string{}
	for i, l := range lines {
		name, ok := strings.CutPrefix(l, "## ")
		if !ok {
			continue
		}
		name = strings.Trim(strings.Fields(name + " x")[0], "`")
		why := "listed"
		if i+1 < len(lines) && !strings.HasPrefix(lines[i+1], "## ") {
			why = lines[i+1]
		}
		out[name] = why
	}
	return out, nil
}

// The normalizations applied to both sides; README.md documents each one.
var normalizers = []struct {
	re   *regexp.Regexp
	repl string
}{
	// Colour codes (none are expected with ANSIBLE_NOCOLOR=1).
	{regexp.MustCompile(`\x1b\[[0-9;?]*[A-Za-z]`), ""},
	// The checkout location of the corpus.
	{regexp.MustCompile(`(?:/[^/\s'"\\:]+)*/tests/golden/cases/`), "<CASES>/"},
	// The per-run HOME directory.
	{regexp.MustCompile(`(?:/[^/\s'"\\:]+)*/cfzt-golden-home\.\w+`), "<HOME>"},
	// The version header printed at -vv and above describes the installation
	// ("ansible-playbook [core X]" or "cfzt-runner [core X compatible, cfzt-runner VERSION]").
	{regexp.MustCompile(`(?m)^\S+ \[core [^\]\n]*\]\n(?:  [^\n]* = [^\n]*\n)*`), "<VERSION-HEADER>\n"},
	// Memory addresses in the repr of Python objects.
	{regexp.MustCompile(`( object at )0x[0-9a-f]+>`), "${1}0x<ADDR>>"},
	// Durations in results (pause and timed modules).
	{regexp.MustCompile(`("delta": )"[^"]*"`), `$1"<DURATION>"`},
	// The user and group a file belongs to: the account the run uses.
	{regexp.MustCompile(`("(?:uid|gid)": )\d+`), "${1}<ID>"},
	{regexp.MustCompile(`("(?:owner|group|pw_name|gr_name)": )"[^"]*"`), `$1"<NAME>"`},
	// The size of a directory depends on the file system.
	{regexp.MustCompile(`("size": )\d+(, "state": "directory")`), "${1}<DIRSIZE>$2"},
	// unarchive's result puts its src between the destination's size and state.
	{regexp.MustCompile(`("size": )\d+(, "src": "[^"]*", "state": "directory")`), "${1}<DIRSIZE>$2"},
	// Inode numbers, devices, inode generations and times of the files a
	// run makes (stat, find).
	{regexp.MustCompile(`("(?:inode|dev)": )\d+`), "${1}<N>"},
	{regexp.MustCompile(`("version": )"\d+"`), `$1"<N>"`},
	{regexp.MustCompile(`("(?:atime|mtime|ctime)": )\d+(?:\.\d+)?`), "${1}<TIME>"},
	// The per-task temporary directories of file transfers and the backup
	// names (pid and time) of the file modules.
	{regexp.MustCompile(`(?:/[^/\s'"\\:]+)*/\.ansible/tmp/ansible-tmp-[0-9.]+-\d+-\d+/`), "<REMOTE_TMP>/"},
	{regexp.MustCompile(`ansible-local-\d+[a-z0-9_]{8}/\.[a-z0-9_]{8}`), "ansible-local-<ID>/.<TMP>"},
	// The template action's rendered file: <local temp>/tmpXXXXXXXX/<name>.
	{regexp.MustCompile(`ansible-local-\d+[a-z0-9_]{8}/tmp[a-z0-9_]{8}/`), "ansible-local-<ID>/tmp<RANDOM>/"},
	{regexp.MustCompile(`(<REMOTE_TMP>/tmp)[a-z0-9_]{8}`), "${1}<RANDOM>"},
	{regexp.MustCompile(`\.\d+\.\d{4}-\d\d-\d\d@\d\d:\d\d:\d\d~`), ".<PID>.<TIMESTAMP>~"},
	// The random part of the names tempfile makes with its default prefix.
	{regexp.MustCompile(`(/ansible\.)[a-z0-9_]{8}\b`), "${1}<RANDOM>"},
	// Block counts and lsattr flags depend on the file system.
	{regexp.MustCompile(`("(?:blocks|block_size)": )\d+`), "${1}<N>"},
	{regexp.MustCompile(`"attr_flags": "[^"]*", "attributes": \[[^\]]*\]`), `"attr_flags": "<FLAGS>", "attributes": [<FLAGS>]`},
	// Async job ids (j<random>.<pid>), in results, job file paths and the
	// ASYNC lines.
	{regexp.MustCompile(`\bj\d{1,12}\.\d+\b`), "<JID>"},
	// The wall-clock start and end of a command's run.
	{regexp.MustCompile(`("(?:start|end)": )"\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?:\.\d{6})?"`), `$1"<TIMESTAMP>"`},
	// The timing lines of the profile_tasks and profile_roles callbacks
	// (date, time since the last line, since the start) and their
	// per-task and per-role seconds.
	{regexp.MustCompile(`(?m)^\w+day \d\d \w+ \d{4}  \d\d:\d\d:\d\d [+-]\d{4} \(\d+:\d\d:\d\d\.\d{3}\) +\d+:\d\d:\d\d\.\d{3} \*+ $`), "<PROFILE-TIME>"},
	{regexp.MustCompile(`(?m) -* \d+\.\d\ds$`), " <SECONDS>"},
	// The timer callback's run time.
	{regexp.MustCompile(`Playbook run took \d+ days, \d+ hours, \d+ minutes, \d+ seconds`), "Playbook run took <RUNTIME>"},
	// The json callback's start and end times and play and task ids.
	{regexp.MustCompile(`("(?:start|end)": )"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d+Z"`), `$1"<ISOTIME>"`},
	{regexp.MustCompile(`("id": )"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}"`), `$1"<UUID>"`},
}

// normalize removes what differs between machines and runs, not between
// implementations.
func normalize(s string) string {
	s = strings.ReplaceAll(s, "\r\n", "\n")
	for _, n := range normalizers {
		s = n.re.ReplaceAllString(s, n.repl)
	}
	return s
}

// lineDiff returns a unified-style listing of the lines that differ between
// want and got, with two lines of context, or "" when they are equal.
func lineDiff(want, got string) string {
	if want == got {
		return ""
	}
	a := splitLines(want)
	b := splitLines(got)
	// Longest common subsequence table; outputs are small.
	lcs := make([][]int, len(a)+1)
	for i := range lcs {
		lcs[i] = make([]int, len(b)+1)
	}
	for i := len(a) - 1; i >= 0; i-- {
		for j := len(b) - 1; j >= 0; j-- {
			if a[i] == b[j] {
				lcs[i][j] = lcs[i+1][j+1] + 1
			} else {
				lcs[i][j] = max(lcs[i+1][j], lcs[i][j+1])
			}
		}
	}
	type op struct {
		kind byte
		text string
	}
	var ops []op
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case i < len(a) && j < len(b) && a[i] == b[j]:
			ops = append(ops, op{' ', a[i]})
			i++
			j++
		case j < len(b) && (i == len(a) || lcs[i][j+1] >= lcs[i+1][j]):
			ops = append(ops, op{'+', b[j]})
			j++
		default:
			ops = append(ops, op{'-', a[i]})
			i++
		}
	}
	const ctx = 2
	var sb strings.Builder
	last := -1
	for k, o := range ops {
		if o.kind == ' ' {
			continue
		}
		from := max(k-ctx, last+1)
		if last >= 0 && from > last+1 {
			sb.WriteString("   ...\n")
		}
		for c := from; c < k; c++ {
			if ops[c].kind == ' ' {
				writeLine(&sb, ' ', ops[c].text)
			}
		}
		writeLine(&sb, o.kind, o.text)
		last = k
		for c := k + 1; c < len(ops) && c <= k+ctx && ops[c].kind == ' '; c++ {
			writeLine(&sb, ' ', ops[c].text)
			last = c
		}
	}
	return sb.String()
}

// splitLines splits s after each newline, without an empty last element.
func splitLines(s string) []string {
	l := strings.SplitAfter(s, "\n")
	if len(l) > 0 && l[len(l)-1] == "" {
		l = l[:len(l)-1]
	}
	return l
}

func writeLine(sb *strings.Builder, kind byte, text string) {
	sb.WriteByte(kind)
	sb.WriteByte(' ')
	if !strings.HasSuffix(text, "\n") {
		text += "⏎ (no newline at end)\n"
	}
	sb.WriteString(text)
}
