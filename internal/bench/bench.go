// Package bench runs cfzt-runner and the reference ansible-playbook side by
// side on the same YAML and reports wall time, peak RSS and API request
// counts (`make bench`, cmd/cfzt-bench). See bench/README.md.
package bench

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"
)

// Runner is one of the two runtimes under comparison.
type Runner struct {
	// Name is "ansible-playbook" or "cfzt-runner".
	Name string
	// Command is the program and leading arguments; the playbook and its
	// arguments follow.
	Command []string
	// Env is added to the common environment.
	Env map[string]string
}

// Sample is one measured run (or one phase of a run).
type Sample struct {
	// Phase names the part of a run measured; "" for a whole run.
	Phase string
	Wall  time.Duration
	// RSSKB is the peak resident set size in KiB of the largest process
	// of the run's process tree (getrusage of the waited-for child).
	RSSKB int64
	// AnonKB is the largest private resident memory (RssAnon) of the
	// waited-for process seen by sampling /proc every 2 ms: memory that is
	// the process's own, without the pages of executables and libraries
	// that the page cache shares.
	AnonKB int64
	// Requests counts API requests by kind ("kubernetes", "cloudflare").
	Requests map[string]int
	// Failed says why the run did not succeed; "" when it did.
	Failed string
	// Recap is the PLAY RECAP of the run, compared across runners.
	Recap string
}

// Case is one measured workload of a scenario.
type Case struct {
	Name string
	// Notes are printed under the table.
	Notes []string
	// Single cases run once per runner, without warm-up: they measure a
	// series of events themselves.
	Single bool
	// Run performs one run with r. iter counts from 0 (warm-up runs
	// included) so a case can vary its input per run. It returns one
	// sample per phase.
	Run func(ctx context.Context, r *Runner, iter int) ([]Sample, error)
}

// Scenario is a group of cases with a shared setup.
type Scenario struct {
	// ID is the number of the scenario in issue 7; Name is its short name.
	ID   int
	Name string
	// Title is the heading of its table.
	Title string
	// Runtimes name the two runtimes in the table's headings when they
	// are not the Runners themselves (e.g. ansible-operator, which runs
	// ansible-playbook, beside cfzt-runner's operator mode).
	Runtimes [2]string
	// Setup prepares the environment (apiserver, simulator, seed data) and
	// returns the cases and a teardown. A *MissingError says the scenario
	// cannot run yet and why.
	Setup func(ctx context.Context, b *Bench) ([]Case, func(), error)
}

// MissingError says what a scenario needs that the tree does not have yet.
type MissingError struct{ What string }

func (e *MissingError) Error() string { return "not run: " + e.What }

// Bench is a benchmark session.
type Bench struct {
	Root    string
	Runners []*Runner // ansible-playbook first, then cfzt-runner
	Runs    int
	Warmup  int
	// Work is a scratch directory (HOME of the runners, kubeconfigs).
	Work string
	// Measure is the cfzt-measure binary that playbook runs are started
	// through, for their memory figures (see cmd/cfzt-measure); without
	// it, the peak RSS is the driver's wait4 figure, which cannot be lower
	// than the driver's own resident size.
	Measure string
	Log     io.Writer
	// Versions describes the runtimes for the report header.
	Versions []string
}

// RunPlaybook runs a playbook with r and measures it. dir is the working
// directory; env is added to the runner's environment.
func (b *Bench) RunPlaybook(ctx context.Context, r *Runner, dir, playbook string, env map[string]string, args ...string) Sample {
	argv := append(append(append([]string(nil), r.Command...), args...), playbook)
	var out bytes.Buffer
	p, err := b.start(ctx, r, dir, env, argv, &out, false)
	if err != nil {
		return Sample{Failed: err.Error()}
	}
	s, err := p.wait()
	s.Recap = recap(out.String())
	if err != nil {
		s.Failed = fmt.Sprintf("%v; output ends:\n%s", err, tail(out.String(), 15))
	} else if strings.Contains(s.Recap, "failed=") && !strings.Contains(s.Recap, "failed=0 ") {
		s.Failed = "a task failed; output ends:\n" + tail(out.String(), 15)
	}
	return s
}

// process is a command started by start.
type process struct {
	cmd    *exec.Cmd
	report *os.File // cfzt-measure's fd 3, or nil
	begun  time.Time
}

// start starts argv for r in dir with its output to out, through
// cfzt-measure when b.Measure is set. Cancelling ctx sends SIGTERM, which
// cfzt-measure passes on. With tree, the private memory reported is the
// sum over the command's whole process tree (cfzt-measure -tree).
func (b *Bench) start(ctx context.Context, r *Runner, dir string, env map[string]string, argv []string, out io.Writer, tree bool) (*process, error) {
	p := &process{}
	if b.Measure != "" {
		measure := []string{b.Measure}
		if tree {
			measure = append(measure, "-tree")
		}
		argv = append(measure, argv...)
	}
	p.cmd = exec.CommandContext(ctx, argv[0], argv[1:]...)
	p.cmd.Dir, p.cmd.Env, p.cmd.Stdout, p.cmd.Stderr = dir, b.environ(r, env), out, out
	p.cmd.Cancel = func() error { return p.cmd.Process.Signal(syscall.SIGTERM) }
	p.cmd.WaitDelay = 30 * time.Second
	var pw *os.File
	if b.Measure != "" {
		var err error
		if p.report, pw, err = os.Pipe(); err != nil {
			return nil, err
		}
		p.cmd.ExtraFiles = []*os.File{pw}
	}
	p.begun = time.Now()
	err := p.cmd.Start()
	if pw != nil {
		pw.Close() // the child has its copy
	}
	if err != nil && p.report != nil {
		p.report.Close()
	}
	return p, err
}

// wait waits for the process and returns its wall time and memory, with
// the error of its exit.
func (p *process) wait() (Sample, error) {
	err := p.cmd.Wait()
	s := Sample{Wall: time.Since(p.begun)}
	if p.report != nil {
		line, _ := io.ReadAll(p.report)
		p.report.Close()
		var ns int64
		if n, _ := fmt.Sscanf(string(line), "wall=%d maxrss=%d anon=%d", &ns, &s.RSSKB, &s.AnonKB); n == 3 {
			s.Wall = time.Duration(ns) // without cfzt-measure's own start
		}
	} else if p.cmd.ProcessState != nil {
		if ru, ok := p.cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			s.RSSKB = ru.Maxrss
		}
	}
	return s, err
}

// environ is the fixed environment of every run: no user configuration,
// no colour, no inventory warnings.
func (b *Bench) environ(r *Runner, extra map[string]string) []string {
	env := map[string]string{
		"PATH":                               "/usr/local/bin:/usr/bin:/bin",
		"HOME":                               filepath.Join(b.Work, "home"),
		"LC_ALL":                             "C.UTF-8",
		"TZ":                                 "UTC",
		"ANSIBLE_NOCOLOR":                    "1",
		"ANSIBLE_LOCALHOST_WARNING":          "False",
		"ANSIBLE_INVENTORY_UNPARSED_WARNING": "False",
		"ANSIBLE_LOCAL_TEMP":                 filepath.Join(b.Work, "home", ".ansible", "tmp"),
		"ANSIBLE_RETRY_FILES_ENABLED":        "False",
	}
	for k, v := range r.Env {
		env[k] = v
	}
	for k, v := range extra {
		env[k] = v
	}
	out := make([]string, 0, len(env))
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

func recap(out string) string {
	i := strings.LastIndex(out, "PLAY RECAP")
	if i < 0 {
		return ""
	}
	var lines []string
	for _, l := range strings.Split(out[i:], "\n")[1:] {
		if strings.TrimSpace(l) == "" {
			break
		}
		lines = append(lines, strings.Join(strings.Fields(l), " "))
	}
	return strings.Join(lines, "\n")
}

func tail(s string, n int) string {
	lines := strings.Split(strings.TrimRight(s, "\n"), "\n")
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// Result holds the samples of one case, per runner and phase.
type Result struct {
	Scenario *Scenario
	Case     string
	// Samples[runner][phase] lists the measured (not warm-up) samples.
	Samples map[string]map[string][]Sample
	Phases  []string
	// Notes are remarks printed under the table (failures, differences).
	Notes []string
}

// RunScenario sets a scenario up and runs each case interleaved: for each
// iteration, every runner once in turn (A B A B ...), the first Warmup
// iterations unrecorded.
func (b *Bench) RunScenario(ctx context.Context, sc *Scenario) ([]*Result, error) {
	cases, teardown, err := sc.Setup(ctx, b)
	if teardown != nil {
		defer teardown()
	}
	if err != nil {
		return nil, err
	}
	var results []*Result
	for _, c := range cases {
		res := &Result{Scenario: sc, Case: c.Name, Samples: map[string]map[string][]Sample{}, Notes: append([]string(nil), c.Notes...)}
		recaps := map[string]string{}
		failed := map[string]bool{}
		first, last := 0, b.Warmup+b.Runs
		if c.Single {
			first, last = b.Warmup, b.Warmup+1
		}
		for iter := first; iter < last; iter++ {
			for _, r := range b.Runners {
				if failed[r.Name] {
					continue
				}
				if ctx.Err() != nil {
					return results, ctx.Err()
				}
				samples, err := c.Run(ctx, r, iter)
				if err != nil {
					return results, fmt.Errorf("%s / %s / %s: %w", sc.Name, c.Name, r.Name, err)
				}
				for _, s := range samples {
					label := "warm-up"
					if iter >= b.Warmup {
						label = fmt.Sprintf("run %d", iter-b.Warmup+1)
					}
					fmt.Fprintf(b.Log, "  %-28s %-16s %-8s %-22s %8.3fs %8.1f MiB%s\n", c.Name, r.Name, label, s.Phase,
						s.Wall.Seconds(), float64(s.RSSKB)/1024, requestsText(s.Requests))
					if s.Failed != "" {
						failed[r.Name] = true
						res.Notes = append(res.Notes, fmt.Sprintf("%s failed (%s): %s", r.Name, label, firstLine(s.Failed)))
						fmt.Fprintf(b.Log, "    FAILED: %s\n", s.Failed)
						continue
					}
					if iter < b.Warmup {
						continue
					}
					if res.Samples[r.Name] == nil {
						res.Samples[r.Name] = map[string][]Sample{}
					}
					if _, seen := res.Samples[r.Name][s.Phase]; !seen && !contains(res.Phases, s.Phase) {
						res.Phases = append(res.Phases, s.Phase)
					}
					res.Samples[r.Name][s.Phase] = append(res.Samples[r.Name][s.Phase], s)
					if s.Phase == "" && s.Recap != "" {
						recaps[r.Name] = s.Recap
					}
				}
			}
		}
		if len(recaps) == 2 && recaps[b.Runners[0].Name] != recaps[b.Runners[1].Name] {
			res.Notes = append(res.Notes, fmt.Sprintf("the PLAY RECAPs differ: %s: %q, %s: %q",
				b.Runners[0].Name, recaps[b.Runners[0].Name], b.Runners[1].Name, recaps[b.Runners[1].Name]))
		}
		results = append(results, res)
	}
	return results, nil
}

func contains(list []string, s string) bool {
	for _, e := range list {
		if e == s {
			return true
		}
	}
	return false
}

func firstLine(s string) string {
	l, _, _ := strings.Cut(s, "\n")
	return l
}

func requestsText(m map[string]int) string {
	if len(m) == 0 {
		return ""
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	var parts []string
	for _, k := range keys {
		parts = append(parts, fmt.Sprintf("%s=%d", k, m[k]))
	}
	return "  " + strings.Join(parts, " ")
}
