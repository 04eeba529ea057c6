// Package demo runs the operator end to end on one machine, with no cluster
// and no Cloudflare account: a local kube-apiserver (internal/kubetest via
// the e2e harness), the Cloudflare API simulator (internal/cfsim) and the
// three tiers of cfzt-runner on ansible/playbooks/reconcile.yml. It installs
// the CRDs, RBAC and the samples of deploy/samples, waits until the tiers
// converge, prints the operator's log and what was created on both sides,
// then edits one route and deletes another and shows those converge too.
//
// `make demo` runs it through cmd/cfzt-demo; TestDemoShort runs the short
// mode and checks its summary.
package demo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"

	"github.com/cfzt/cfzt-runner/internal/e2e"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

// Options configure Run.
type Options struct {
	// Root is the repository root (default: found from the working
	// directory).
	Root string
	// SamplesDir holds the YAML to install (default deploy/samples).
	SamplesDir string
	// Out receives the narration, the operator's log (unless Short) and
	// the tables. Default os.Stdout.
	Out io.Writer
	// Color turns on ANSI colours in the demo's output and the operator's.
	Color bool
	// Short runs the quick version: the operator's log is kept (shown
	// only on failure) and the convergence checks use a shorter quiet
	// window.
	Short bool
	// LogLevel is the tiers' LOG_LEVEL (default WARNING: one line per task
	// result; INFO adds each result's data, DEBUG more).
	LogLevel string
	// Timeout bounds each convergence wait (default 3 minutes).
	Timeout time.Duration
}

// Row is one line of a summary table.
type Row struct {
	Kind, Name, Detail string
}

// Snapshot is what exists on both sides at one point of the demo.
type Snapshot struct {
	Kubernetes []Row
	Cloudflare []Row
}

// Summary is what the demo did and saw.
type Summary struct {
	// Converged, Edited and Final are the snapshots after the first
	// convergence, after the route edit and after the route deletion.
	Converged, Edited, Final Snapshot
	// Routes are the enabled HTTPRoutes of the samples.
	Routes []*Route
	// EditedRoute and DeletedRoute are namespace/name of the routes the
	// demo changed; Edit describes the change.
	EditedRoute, DeletedRoute, Edit string
	// Durations of each act, by name.
	Durations map[string]time.Duration
	// Log holds each tier's output without colour codes.
	Log map[string][]string
	// Stopped reports how each tier ended after SIGTERM ("" = exit 0).
	Stopped map[string]string
}

// tiers are the operator's three Deployments, run here as processes.
var tiers = []string{"manager", "kube_worker", "cloudflare_worker"}

type demo struct {
	opts  Options
	out   io.Writer
	st    style
	h     *e2e.Harness
	sim   *simulator
	dyn   dynamic.Interface
	logs  *logSink
	procs []*process
	sum   *Summary

	record  e2e.SyncBuffer // everything written to out, for checkSecrets
	samples *samples
	removed []*Route // routes deleted during the demo
	act     int
}

// Run runs the demo and stops everything it started before it returns,
// also when ctx is cancelled (an interrupt).
func Run(ctx context.Context, opts Options) (*Summary, error) {
	if opts.Out == nil {
		opts.Out = os.Stdout
	}
	if opts.LogLevel == "" {
		opts.LogLevel = "WARNING"
	}
	if opts.Timeout <= 0 {
		opts.Timeout = 3 * time.Minute
	}
	if opts.Root == "" {
		root, err := kubetest.RepoRoot()
		if err != nil {
			return nil, err
		}
		opts.Root = root
	}
	d := &demo{opts: opts, st: style{color: opts.Color},
		sum: &Summary{Durations: map[string]time.Duration{}, Stopped: map[string]string{}}}
	d.out = io.MultiWriter(opts.Out, &d.record)
	var echo io.Writer
	if !opts.Short {
		echo = d.out
	}
	d.logs = newLogSink(echo, d.st)
	begin := time.Now()
	err := d.run(ctx)
	d.cleanup()
	d.sum.Log = map[string][]string{}
	for _, t := range tiers {
		d.sum.Log[t] = d.logs.all(t)
	}
	if err != nil {
		d.failureReport(err)
		return d.sum, err
	}
	fmt.Fprintf(d.out, "\n%s demo finished in %s; everything it started is stopped.\n", d.st.green("✔"), time.Since(begin).Round(100*time.Millisecond))
	return d.sum, nil
}

func (d *demo) run(ctx context.Context) error {
	if err := d.step(ctx, "Load the samples", d.loadSamples); err != nil {
		return err
	}
	if err := d.step(ctx, "Start the kube-apiserver, install the CRDs and RBAC, build cfzt-runner", d.startCluster); err != nil {
		return err
	}
	if err := d.step(ctx, "Start the Cloudflare API simulator", d.startSim); err != nil {
		return err
	}
	if err := d.step(ctx, "Install the samples", d.installSamples); err != nil {
		return err
	}
	if err := d.step(ctx, "Run the three tiers until they converge", d.startAndConverge); err != nil {
		return err
	}
	d.sum.Converged = d.printSummary(ctx, "after the first convergence")
	if err := d.step(ctx, "Edit a route", d.editRoute); err != nil {
		return err
	}
	d.sum.Edited = d.snapshot(ctx)
	if err := d.step(ctx, "Delete a route", d.deleteRoute); err != nil {
		return err
	}
	d.sum.Final = d.printSummary(ctx, "at the end")
	if err := d.step(ctx, "Check that no secret reached any output", d.checkSecrets); err != nil {
		return err
	}
	return d.step(ctx, "Stop the operator", d.stopTiers)
}

// step runs one act with a numbered banner and its duration.
func (d *demo) step(ctx context.Context, title string, f func(context.Context) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("interrupted before %q: %w", title, err)
	}
	d.act++
	fmt.Fprintf(d.out, "\n%s %s\n", d.st.cyan(fmt.Sprintf("==> %d.", d.act)), d.st.bold(title))
	begin := time.Now()
	err := f(ctx)
	took := time.Since(begin)
	d.sum.Durations[title] = took
	if err != nil {
		fmt.Fprintf(d.out, "%s %s failed after %s\n", d.st.red("✘"), title, took.Round(100*time.Millisecond))
		return fmt.Errorf("%s: %w", strings.ToLower(title[:1])+title[1:], err)
	}
	fmt.Fprintf(d.out, "%s %s\n", d.st.green("✔"), d.st.dim(fmt.Sprintf("done in %s", took.Round(100*time.Millisecond))))
	return nil
}

func (d *demo) say(format string, args ...any) {
	fmt.Fprintf(d.out, "    "+format+"\n", args...)
}

func (d *demo) startCluster(ctx context.Context) error {
	type started struct {
		h   *e2e.Harness
		err error
	}
	done := make(chan started, 1)
	go func() {
		h, err := e2e.Start(e2e.Options{})
		done <- started{h, err}
	}()
	var res started
	select {
	case res = <-done:
	case <-ctx.Done():
		// e2e.Start takes no context: let it finish, then stop what it
		// started. A second interrupt kills the demo and, with it, the
		// apiserver (parent-death signal).
		d.say("interrupted: waiting for the apiserver start and the build to finish, to stop them (interrupt again to abort)")
		res = <-done
		res.h.Stop()
		return ctx.Err()
	}
	if res.err != nil {
		return res.err
	}
	h := res.h
	d.h = h
	var err error
	if d.dyn, err = h.Cluster.Dynamic(); err != nil {
		return err
	}
	crds, _ := filepath.Glob(filepath.Join(d.opts.Root, "deploy", "crds", "*.yaml"))
	test, _ := filepath.Glob(filepath.Join(d.opts.Root, "deploy", "crds", "testing", "*.yaml"))
	rbac, _ := filepath.Glob(filepath.Join(d.opts.Root, "deploy", "rbac", "*.yaml"))
	d.say("kube-apiserver %s (etcd embedded; no controllers, no nodes)", h.Cluster.Host)
	d.say("CRDs: %s; test-only: %s", baseNames(crds), baseNames(test))
	d.say("RBAC: %s; the tiers authenticate as %s/%s, never as admin", baseNames(rbac), h.Namespace, h.ServiceAccount)
	d.say("cfzt-runner built: %s", h.Runner)
	return nil
}

func (d *demo) startSim(ctx context.Context) error {
	s, err := startSimulator(d.samples.accountID, d.samples.tunnelID, d.samples.zones)
	if err != nil {
		return err
	}
	d.sim = s
	st := s.State()
	var zones []string
	for _, z := range st.Zones {
		zones = append(zones, z.Name)
	}
	d.say("%s (account %s, zones %s, tunnel %s)", s.Base, s.AccountID, strings.Join(zones, ", "), s.TunnelID)
	return nil
}

// cleanup stops the tiers, the simulator and the cluster, whatever state
// the demo is in.
func (d *demo) cleanup() {
	for _, p := range d.procs {
		if p.running() {
			if err := p.stop(15 * time.Second); err != nil {
				d.sum.Stopped[p.name] = err.Error()
			}
		}
	}
	if d.sim != nil {
		d.sim.stop()
	}
	if d.h != nil {
		d.h.Stop()
	}
}

// failureReport prints why the demo failed and the end of each tier's log.
func (d *demo) failureReport(err error) {
	fmt.Fprintf(d.out, "\n%s demo failed: %v\n", d.st.red("✘"), err)
	for _, t := range tiers {
		lines := d.logs.tail(t, 25)
		if len(lines) == 0 {
			continue
		}
		fmt.Fprintf(d.out, "\n--- last %d lines of %s ---\n%s\n", len(lines), t, strings.Join(lines, "\n"))
	}
}

func baseNames(paths []string) string {
	if len(paths) == 0 {
		return "(none)"
	}
	var out []string
	for _, p := range paths {
		out = append(out, filepath.Base(p))
	}
	return strings.Join(out, ", ")
}

// errMissing reports a missing prerequisite of the demo (a sample, a role,
// a playbook) rather than an operator failure.
var errMissing = errors.New("missing from this checkout")
