// Command k8s-targets runs kubernetes.core's own integration targets
// (tests/integration/targets in the kubernetes.core source) under the
// reference ansible-playbook and under cfzt-runner, each on a fresh
// cluster (internal/kubetest with kube-controller-manager, kube-scheduler
// and KWOK fake nodes), dumps the objects each run leaves behind, and
// writes a markdown table: run or skipped, pass under each, same objects,
// first difference.
//
//	go run ./tests/k8s-targets -src /path/to/kubernetes.core -out /tmp/k8s-targets [-targets a,b]
//
// -src is a kubernetes.core checkout or a git directory (read at -ref
// with git archive). Nothing of it is copied into this repository: it is
// extracted to a temporary directory laid out as
// ansible_collections/kubernetes/core, which both runners get through
// ANSIBLE_COLLECTIONS_PATH (as ansible-test runs a target from inside the
// collection tree), with the targets directory as ANSIBLE_ROLES_PATH (as
// each target's runme.sh does). See README.md.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"syscall"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
)

type options struct {
	src, ref, out, oracleDir, runner string
	targets                          string
	timeout                          time.Duration
	only                             string // "", "oracle" or "cfzt"
	table                            string
}

func main() {
	var o options
	home, _ := os.UserHomeDir()
	flag.StringVar(&o.src, "src", os.Getenv("CFZT_K8SCORE_SRC"), "kubernetes.core source: a checkout or a git directory (env CFZT_K8SCORE_SRC)")
	flag.StringVar(&o.ref, "ref", "6.1.0", "git ref to read when -src is a git directory")
	flag.StringVar(&o.out, "out", "/tmp/k8s-targets", "directory for logs, object dumps, results and table.md")
	flag.StringVar(&o.oracleDir, "oracle", filepath.Join(home, ".cache/ansible-oracle"), "the reference installation made by hack/install-oracle.sh")
	flag.StringVar(&o.runner, "runner", "bin/cfzt-runner", "the cfzt-runner binary")
	flag.StringVar(&o.targets, "targets", "all", "comma-separated targets, or all")
	flag.DurationVar(&o.timeout, "timeout", 25*time.Minute, "time limit of one run")
	flag.StringVar(&o.only, "only", "", "run only this side (oracle or cfzt); the other's earlier result is kept")
	flag.StringVar(&o.table, "table", "", "only rewrite the table from the results in -out (no runs)")
	flag.Parse()
	if err := run(o); err != nil {
		fmt.Fprintln(os.Stderr, "k8s-targets:", err)
		os.Exit(1)
	}
}

func run(o options) error {
	if err := os.MkdirAll(o.out, 0o755); err != nil {
		return err
	}
	if o.table != "" {
		return writeTable(o.out, o.table)
	}
	if o.src == "" {
		return errors.New("-src (or CFZT_K8SCORE_SRC) names no kubernetes.core source")
	}
	runner, err := filepath.Abs(o.runner)
	if err != nil {
		return err
	}
	if _, err := os.Stat(runner); err != nil {
		return fmt.Errorf("cfzt-runner: %w (build it with make build)", err)
	}
	o.runner = runner
	tmp, err := os.MkdirTemp("", "k8s-targets-")
	if err != nil {
		return err
	}
	defer os.RemoveAll(tmp)
	coll := filepath.Join(tmp, "collections")
	tree := filepath.Join(coll, "ansible_collections", "kubernetes", "core")
	if err := extract(o.src, o.ref, tree); err != nil {
		return err
	}
	targetsDir := filepath.Join(tree, "tests", "integration", "targets")
	all, err := listTargets(targetsDir)
	if err != nil {
		return err
	}
	want := all
	if o.targets != "all" {
		want = nil
		for _, t := range strings.Split(o.targets, ",") {
			want = append(want, findTarget(all, strings.TrimSpace(t)))
		}
	}
	for _, t := range want {
		if t == nil {
			return errors.New("-targets names a target that does not exist")
		}
		res := loadResult(o.out, t.Name)
		res.Target = t.Name
		res.Skip = t.skipReason()
		if res.Skip != "" {
			res.Oracle, res.Cfzt = nil, nil
			saveResult(o.out, res)
			fmt.Printf("%s: skipped (%s)\n", t.Name, res.Skip)
			continue
		}
		for _, side := range []string{"oracle", "cfzt"} {
			if o.only != "" && o.only != side {
				continue
			}
			fmt.Printf("%s: %s ...\n", t.Name, side)
			r := runSide(o, t, side, coll, targetsDir, tmp)
			if side == "oracle" {
				res.Oracle = r
			} else {
				res.Cfzt = r
			}
			fmt.Printf("%s: %s rc=%d %s (%s)\n", t.Name, side, r.RC, r.Error, r.Duration)
		}
		res.compare(o.out)
		saveResult(o.out, res)
	}
	return writeTable(o.out, filepath.Join(o.out, "table.md"))
}

// extract lays the source out under dest: a directory with
// tests/integration/targets is copied, a git directory is archived at ref.
func extract(src, ref, dest string) error {
	if err := os.MkdirAll(dest, 0o755); err != nil {
		return err
	}
	if st, err := os.Stat(filepath.Join(src, "tests", "integration", "targets")); err == nil && st.IsDir() {
		return exec.Command("cp", "-a", src+"/.", dest).Run()
	}
	gitDir := src
	if st, err := os.Stat(filepath.Join(src, "repo")); err == nil && st.IsDir() {
		gitDir = filepath.Join(src, "repo")
	}
	cmd := exec.Command("sh", "-c", `git --git-dir="$1" archive "$2" | tar -x -C "$3"`, "sh", gitDir, ref, dest)
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("reading %s at %s: %v: %s", src, ref, err, out)
	}
	return nil
}

type target struct {
	Name    string
	Dir     string
	Aliases []string
	Deps    []string
}

func listTargets(dir string) ([]*target, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, err
	}
	var out []*target
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		t := &target{Name: e.Name(), Dir: filepath.Join(dir, e.Name())}
		if b, err := os.ReadFile(filepath.Join(t.Dir, "aliases")); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				if l = strings.TrimSpace(l); l != "" && !strings.HasPrefix(l, "#") {
					t.Aliases = append(t.Aliases, l)
				}
			}
		}
		if b, err := os.ReadFile(filepath.Join(t.Dir, "meta", "main.yml")); err == nil {
			for _, l := range strings.Split(string(b), "\n") {
				l = strings.TrimSpace(l)
				if strings.HasPrefix(l, "- ") {
					t.Deps = append(t.Deps, strings.TrimSpace(l[2:]))
				}
			}
		}
		out = append(out, t)
	}
	return out, nil
}

func findTarget(all []*target, name string) *target {
	for _, t := range all {
		if t.Name == name {
			return t
		}
	}
	return nil
}

func (t *target) has(alias string) bool {
	for _, a := range t.Aliases {
		if a == alias {
			return true
		}
	}
	return false
}

// skipReason says why a target is not run here, or "".
func (t *target) skipReason() string {
	if t.has("disabled") || t.has("unsupported") {
		return "aliases: disabled (a helper role of other targets)"
	}
	if strings.HasPrefix(t.Name, "helm") || strings.Contains(t.Name, "helm_") {
		return "helm: needs the helm binary (out of scope)"
	}
	for _, d := range t.Deps {
		if strings.Contains(d, "helm") {
			return "helm: needs the helm binary (out of scope)"
		}
	}
	switch t.Name {
	case "lookup_kustomize":
		return "needs the kustomize or kubectl binary"
	case "k8s_check_mode", "k8s_validate":
		return "tests releases of the Python client (and kubernetes-validate) that it installs with pip into virtualenvs"
	case "k8s_manifest_url":
		return "serves its manifests from an nginx container (docker)"
	}
	b, err := os.ReadFile(filepath.Join(t.Dir, "runme.sh"))
	if err != nil {
		return "no runme.sh"
	}
	for _, l := range strings.Split(string(b), "\n") {
		l = strings.TrimSpace(l)
		switch {
		case l == "", strings.HasPrefix(l, "#"), l == "set -eux",
			l == "export ANSIBLE_CALLBACKS_ENABLED=profile_tasks",
			l == "export ANSIBLE_ROLES_PATH=../",
			l == `ansible-playbook playbook.yaml "$@"`:
		default:
			return "runme.sh does more than run playbook.yaml: " + l
		}
	}
	return ""
}

// needsKubelet: targets that exec into pods, read their logs or copy
// files get the kubelet stand-in (internal/kubetest/kubelet) as their
// only node instead of KWOK's fake nodes.
func (t *target) needsKubelet() bool {
	switch t.Name {
	case "k8s_exec", "k8s_log", "k8s_copy":
		return true
	}
	return false
}

// sideResult is one run of a target.
type sideResult struct {
	RC       int      `json:"rc"`
	Error    string   `json:"error,omitempty"` // the harness's own trouble (cluster, timeout)
	Failed   string   `json:"failed,omitempty"`
	Duration string   `json:"duration"`
	Objects  []string `json:"-"`
	Written  int      `json:"written"` // objects the playbook wrote
}

func (r *sideResult) pass() bool { return r != nil && r.Error == "" && r.RC == 0 }

// missingImages are the images kubernetes.core 6.1's targets use as ones
// no registry has (k8s_waiter, k8s_rollback).
var missingImages = []string{
	"i_made_this_up:and_this_too",
	"nginx:1.0.23449928384992872784",
	"quay.io/fluentd_elasticsearch/fluentd:v2734894949",
}

func runSide(o options, t *target, side, coll, targetsDir, tmp string) *sideResult {
	r := &sideResult{RC: -1}
	start := time.Now()
	defer func() { r.Duration = time.Since(start).Round(time.Second).String() }()
	// As on the kind clusters of kubernetes.core's CI: pods of a missing
	// service account are refused, and the images the targets use as
	// ones that do not exist cannot be pulled (KWOK has no registry).
	opts := kubetest.Options{Controllers: true, Scheduler: true, FakeNodes: 2, ServiceAccountAdmission: true, MissingImages: missingImages}
	if t.needsKubelet() {
		opts.FakeNodes = 0
	}
	if t.Name == "k8s_gc" || t.Name == "k8s_waiter" {
		// They look at a pod during its grace period, which a kubelet
		// ends when the container has stopped (theirs sleep and ignore
		// SIGTERM): k8s_gc at a Job's pod after a background deletion of
		// the Job, k8s_waiter waits 5 seconds for a deleted pod to go.
		// Only there: elsewhere it would add 30 seconds to each pod
		// deletion the targets wait for.
		opts.PodGracePeriod = true
	}
	auditDir := filepath.Join(tmp, "audit-"+t.Name+"-"+side)
	if err := os.MkdirAll(auditDir, 0o700); err != nil {
		r.Error = err.Error()
		return r
	}
	args, auditLog, err := auditArgs(auditDir)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	// kube-apiserver 1.36 checks impersonation with the constrained
	// impersonation verbs (impersonate-on:...) and words its refusals
	// after them; kubernetes.core 6.1's k8s_user_impersonation asserts the
	// wording of the clusters it was tested on ("cannot impersonate
	// resource"), which the feature gate keeps.
	opts.ExtraArgs = append(args, "--feature-gates=ConstrainedImpersonation=false")
	c, err := kubetest.Start(opts)
	if err != nil {
		r.Error = "cluster: " + firstLine(err.Error())
		return r
	}
	defer c.Stop()
	if t.needsKubelet() {
		// The stand-in registers its Node while kube-controller-manager
		// writes to new Nodes too: retry its conflicts.
		var k *kubelet.Kubelet
		for i := 0; i < 10; i++ {
			if k, err = kubelet.ForCluster(c, "standin"); err == nil || !strings.Contains(err.Error(), "the object has been modified") {
				break
			}
			time.Sleep(time.Second)
		}
		if err != nil {
			r.Error = "kubelet: " + firstLine(err.Error())
			return r
		}
		defer k.Close()
		beatCtx, stopBeat := context.WithCancel(context.Background())
		defer stopBeat()
		if err := keepNodeAlive(beatCtx, c.AdminConfig, "standin"); err != nil {
			r.Error = "kubelet heartbeat: " + firstLine(err.Error())
			return r
		}
		k.SetRootPreparer(seedRoot)
		k.SetExec(imageCommands)
		// The targets' containers run their commands (echo, seq, shell
		// loops): k8s_log reads what they print, and its Jobs complete.
		k.SetRunCommands()
	}
	d, err := newDumper(c.AdminConfig)
	if err != nil {
		r.Error = "dump: " + firstLine(err.Error())
		return r
	}
	ctx := context.Background()
	before, err := d.keys(ctx)
	if err != nil {
		r.Error = "dump: " + firstLine(err.Error())
		return r
	}

	// A private HOME with the admin kubeconfig at ~/.kube/config, as the
	// targets expect (k8s_full and lookup_k8s move it away and back).
	home := filepath.Join(tmp, "home-"+t.Name+"-"+side)
	if err := os.MkdirAll(filepath.Join(home, ".kube"), 0o700); err != nil {
		r.Error = err.Error()
		return r
	}
	// Laid out as kind writes it (the clusters of kubernetes.core's CI):
	// the CA and a client certificate inline. setup_kubeconfig copies the
	// certificate files the Python client makes of it (lookup_k8s), and
	// k8s_info deletes the CA line to make a kubeconfig that fails TLS.
	if err := c.WriteKindKubeconfig(filepath.Join(home, ".kube", "config")); err != nil {
		r.Error = err.Error()
		return r
	}
	// `python` on PATH is the interpreter with python3-kubernetes, as
	// in ansible-test's environments (k8s_full runs `python -c ...`).
	pybin := filepath.Join(home, "bin")
	if err := os.MkdirAll(pybin, 0o755); err == nil {
		_ = os.Symlink("/usr/bin/python3", filepath.Join(pybin, "python"))
	}
	env := []string{
		"HOME=" + home,
		"PATH=" + pybin + ":/usr/local/bin:/usr/bin:/bin:" + os.Getenv("PATH"),
		"LANG=C.UTF-8",
		"ANSIBLE_NOCOLOR=1",
		"ANSIBLE_ROLES_PATH=" + targetsDir,
		"ANSIBLE_LOCAL_TEMP=" + filepath.Join(home, ".ansible", "tmp"),
		// Both run the targets' own Python modules (library/) with the
		// interpreter that has python3-kubernetes.
		"ANSIBLE_PYTHON_INTERPRETER=/usr/bin/python3",
	}
	var argv []string
	if side == "oracle" {
		site := filepath.Join(o.oracleDir, "root/usr/lib/python3/dist-packages")
		env = append(env,
			"PYTHONPATH="+site,
			"ANSIBLE_COLLECTIONS_PATH="+coll+":"+filepath.Join(site, "ansible_collections"),
		)
		argv = []string{"/usr/bin/python3", filepath.Join(o.oracleDir, "root/usr/bin/ansible-playbook"), "playbook.yaml"}
	} else {
		env = append(env, "ANSIBLE_COLLECTIONS_PATH="+coll)
		argv = []string{o.runner, "playbook.yaml"}
	}
	logPath := filepath.Join(o.out, t.Name+"."+side+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		r.Error = err.Error()
		return r
	}
	argv = withUserHome(argv, home)
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Dir = t.Dir
	cmd.Env = env
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		logf.Close()
		r.Error = err.Error()
		return r
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-time.After(o.timeout):
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = <-done
		r.Error = "timed out after " + o.timeout.String()
	}
	logf.Close()
	r.RC = cmd.ProcessState.ExitCode()
	_ = err
	if log, err := os.ReadFile(logPath); err == nil {
		r.Failed = firstFailure(string(log))
	}

	wobjs, writes, err := written(auditLog)
	if err != nil {
		r.Error = "audit log: " + firstLine(err.Error())
		return r
	}
	r.Written = len(wobjs)
	_ = os.WriteFile(filepath.Join(o.out, t.Name+"."+side+".written.json"), []byte("[\n"+strings.Join(wobjs, ",\n")+"\n]\n"), 0o644)
	_ = os.WriteFile(filepath.Join(o.out, t.Name+"."+side+".writes.txt"), []byte(strings.Join(writes, "\n")+"\n"), 0o644)

	// Let namespace deletion and pod termination that the run started
	// finish, then dump what is left.
	d.settle(ctx, 60*time.Second)
	objs, err := d.dump(ctx, before)
	if err != nil {
		r.Error = strings.TrimSpace(r.Error + " dump: " + firstLine(err.Error()))
		return r
	}
	r.Objects = objs
	_ = os.WriteFile(filepath.Join(o.out, t.Name+"."+side+".objects.json"), []byte("[\n"+strings.Join(objs, ",\n")+"\n]\n"), 0o644)
	return r
}

// firstFailure is the first failed task in an ansible-playbook output:
// its TASK line and the fatal/failed line (shortened).
func firstFailure(log string) string {
	lines := strings.Split(log, "\n")
	task := ""
	played := false
	for i, l := range lines {
		if strings.HasPrefix(l, "PLAY [") {
			played = true
		}
		if strings.HasPrefix(l, "TASK [") {
			task = strings.TrimRight(strings.TrimSuffix(strings.TrimRight(l, "*"), " "), " ")
			continue
		}
		if strings.HasPrefix(l, "fatal: ") || (strings.HasPrefix(l, "failed: ") && !strings.Contains(l, "...ignoring")) {
			if i+1 < len(lines) && lines[i+1] == "...ignoring" {
				continue
			}
			return shorten(task+" "+l, 300)
		}
		// An error before any play is a load error; once tasks run, each
		// failure has its fatal/failed line (and may be ignored).
		if !played && (strings.HasPrefix(l, "ERROR! ") || strings.HasPrefix(l, "[ERROR]: ")) {
			return shorten(l, 300)
		}
	}
	return ""
}

func shorten(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

func firstLine(s string) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return s[:i]
	}
	return s
}

// result is a target's row of the table, saved as results/NAME.json so
// that targets can be run one at a time and the table rewritten.
type result struct {
	Target     string      `json:"target"`
	Skip       string      `json:"skip,omitempty"`
	Oracle     *sideResult `json:"oracle,omitempty"`
	Cfzt       *sideResult `json:"cfzt,omitempty"`
	SameObjs   *bool       `json:"same_objects,omitempty"`
	ObjectDiff string      `json:"object_diff,omitempty"`
}

func (r *result) compare(out string) {
	missing := false
	load := func(side, what string) []string {
		b, err := os.ReadFile(filepath.Join(out, r.Target+"."+side+"."+what+".json"))
		if err != nil {
			missing = true
			return nil
		}
		var raw []json.RawMessage
		if json.Unmarshal(b, &raw) != nil {
			return nil
		}
		var s []string
		for _, m := range raw {
			s = append(s, string(m))
		}
		return s
	}
	if r.Oracle == nil || r.Cfzt == nil || r.Oracle.Error != "" || r.Cfzt.Error != "" {
		r.SameObjs, r.ObjectDiff = nil, ""
		return
	}
	ow, cw, oo, co := load("oracle", "written"), load("cfzt", "written"), load("oracle", "objects"), load("cfzt", "objects")
	if missing {
		// Without the dumps (a result copied alone) the comparison made
		// when the target ran stands.
		return
	}
	diff := diffObjects(ow, cw)
	if diff != "" {
		diff = "last written: " + diff
	} else if diff = diffObjects(oo, co); diff != "" {
		diff = "left at the end: " + diff
	}
	same := diff == ""
	r.SameObjs, r.ObjectDiff = &same, diff
}

func resultPath(out, name string) string { return filepath.Join(out, "results", name+".json") }

func loadResult(out, name string) *result {
	r := &result{}
	if b, err := os.ReadFile(resultPath(out, name)); err == nil {
		_ = json.Unmarshal(b, r)
	}
	return r
}

func saveResult(out string, r *result) {
	_ = os.MkdirAll(filepath.Join(out, "results"), 0o755)
	b, _ := json.MarshalIndent(r, "", "  ")
	_ = os.WriteFile(resultPath(out, r.Target), append(b, '\n'), 0o644)
}

func writeTable(out, path string) error {
	files, _ := filepath.Glob(filepath.Join(out, "results", "*.json"))
	sort.Strings(files)
	var b strings.Builder
	b.WriteString("| target | run | oracle pass | cfzt pass | same objects | first difference |\n|---|---|---|---|---|---|\n")
	var ran, oraclePass, cfztPass, same, both int
	for _, f := range files {
		data, err := os.ReadFile(f)
		if err != nil {
			return err
		}
		var r result
		if err := json.Unmarshal(data, &r); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		if r.Skip == "" {
			r.compare(out)
			saveResult(out, &r)
		}
		if r.Skip != "" {
			fmt.Fprintf(&b, "| %s | skipped: %s | | | | |\n", r.Target, cell(r.Skip))
			continue
		}
		ran++
		op, cp := r.Oracle.pass(), r.Cfzt.pass()
		if op {
			oraclePass++
		}
		if cp {
			cfztPass++
		}
		if op && cp {
			both++
		}
		sameCell := ""
		if r.SameObjs != nil {
			sameCell = fmt.Sprintf("%s (%d written)", yesNo(*r.SameObjs), r.Oracle.Written)
			if *r.SameObjs {
				same++
			}
		}
		first := ""
		switch {
		case r.Oracle == nil || r.Cfzt == nil:
			first = "not run on both sides"
		case r.Oracle.Error != "":
			first = "oracle: " + r.Oracle.Error
		case r.Cfzt.Error != "":
			first = "cfzt-runner: " + r.Cfzt.Error
		case op && !cp:
			first = "cfzt-runner: " + orElse(r.Cfzt.Failed, fmt.Sprintf("exit %d", r.Cfzt.RC))
		case !op && cp:
			first = "oracle: " + orElse(r.Oracle.Failed, fmt.Sprintf("exit %d", r.Oracle.RC))
		case !op && !cp:
			first = "both fail; oracle: " + orElse(r.Oracle.Failed, fmt.Sprintf("exit %d", r.Oracle.RC)) +
				"; cfzt-runner: " + orElse(r.Cfzt.Failed, fmt.Sprintf("exit %d", r.Cfzt.RC))
		case r.ObjectDiff != "":
			first = r.ObjectDiff
		}
		fmt.Fprintf(&b, "| %s | run | %s | %s | %s | %s |\n", r.Target, passCell(r.Oracle), passCell(r.Cfzt), sameCell, cell(first))
	}
	fmt.Fprintf(&b, "\nRun: %d targets. Pass under the oracle: %d. Pass under cfzt-runner: %d (both: %d). Same objects: %d.\n",
		ran, oraclePass, cfztPass, both, same)
	return os.WriteFile(path, []byte(b.String()), 0o644)
}

func passCell(r *sideResult) string {
	if r == nil {
		return "not run"
	}
	s := yesNo(r.pass())
	if r.Duration != "" {
		s += " (" + r.Duration + ")"
	}
	return s
}

func yesNo(b bool) string {
	if b {
		return "yes"
	}
	return "**no**"
}

func orElse(s, d string) string {
	if s == "" {
		return d
	}
	return s
}

// cell makes s safe in a markdown table cell.
func cell(s string) string {
	s = strings.ReplaceAll(s, "|", `\|`)
	s = strings.ReplaceAll(s, "\n", " ")
	return shorten(s, 400)
}
