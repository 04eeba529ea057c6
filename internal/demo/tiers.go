package demo

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// pollInterval is the tiers' resync interval in the demo. Watches trigger
// the cycles that matter; this only bounds how long a missed event waits.
const pollInterval = "20"

// tierEnv is the environment of one tier: the harness's operator
// credentials (never admin), the simulator, and the seeds' variables.
func (d *demo) tierEnv(tier string) []string {
	env := d.h.BaseEnv()
	env["ROLE"] = tier
	env["POD_NAME"] = "demo-" + strings.ReplaceAll(tier, "_", "-") + "-0"
	env["KUBECONFIG"] = d.h.Cluster.OperatorKubeconfig
	env["CLOUDFLARE_API_BASE"] = d.sim.Base
	env["WATCH_NAMESPACES"] = ""
	env["POLL_INTERVAL_SECONDS"] = pollInterval
	env["LOG_LEVEL"] = d.opts.LogLevel
	delete(env, "ANSIBLE_NOCOLOR")
	delete(env, "ANSIBLE_FORCE_COLOR")
	if d.opts.Color {
		env["ANSIBLE_FORCE_COLOR"] = "1"
	} else {
		env["ANSIBLE_NOCOLOR"] = "1"
	}
	var out []string
	for _, kv := range os.Environ() {
		name, _, _ := strings.Cut(kv, "=")
		if _, override := env[name]; override || strings.HasPrefix(name, "K8S_AUTH_") || strings.HasPrefix(name, "ANSIBLE_") ||
			strings.HasPrefix(name, "CLOUDFLARE_") || name == "NO_COLOR" {
			continue
		}
		out = append(out, kv)
	}
	for k, v := range env {
		out = append(out, k+"="+v)
	}
	sort.Strings(out)
	return out
}

// startTiers runs cfzt-runner --watch on reconcile.yml once per tier, as the
// three Deployments would.
func (d *demo) startTiers(ctx context.Context) error {
	playbook := filepath.Join(d.opts.Root, "ansible", "playbooks", "reconcile.yml")
	if _, err := os.Stat(playbook); err != nil {
		return fmt.Errorf("ansible/playbooks/reconcile.yml (the tier dispatcher): %w", errMissing)
	}
	for _, tier := range tiers {
		cmd := exec.Command(d.h.Runner, "--watch", "--interval", pollInterval, "--grace", "10s", playbook)
		cmd.Dir = d.opts.Root
		cmd.Env = d.tierEnv(tier)
		w := d.logs.writer(tier)
		cmd.Stdout, cmd.Stderr = w, w
		p, err := startProcess(tier, cmd)
		if err != nil {
			return err
		}
		d.procs = append(d.procs, p)
		d.say("%s: cfzt-runner --watch reconcile.yml (pid %d, ROLE=%s)", tier, p.cmd.Process.Pid, tier)
	}
	if d.opts.Short {
		d.say("%s", d.st.dim("short mode: the operator's log is kept and shown only if the demo fails"))
	}
	return nil
}

func (d *demo) startAndConverge(ctx context.Context) error {
	if err := d.startTiers(ctx); err != nil {
		return err
	}
	return d.converge(ctx, "every sample route is live in Cloudflare", nil)
}

// stopTiers sends SIGTERM to every tier and checks each exits cleanly.
func (d *demo) stopTiers(ctx context.Context) error {
	var failed []string
	for _, p := range d.procs {
		begin := time.Now()
		err := p.stop(20 * time.Second)
		took := time.Since(begin).Round(10 * time.Millisecond)
		if err != nil {
			d.sum.Stopped[p.name] = err.Error()
			failed = append(failed, fmt.Sprintf("%s: %v", p.name, err))
			d.say("%s: %s", p.name, d.st.red(err.Error()))
			continue
		}
		d.sum.Stopped[p.name] = ""
		d.say("%s: SIGTERM, exited 0 after %s", p.name, took)
	}
	if len(failed) > 0 {
		return fmt.Errorf("tiers did not stop cleanly: %s", strings.Join(failed, "; "))
	}
	return nil
}

// checkTiersRunning fails when a tier exited on its own.
func (d *demo) checkTiersRunning() error {
	for _, p := range d.procs {
		if !p.running() {
			return fmt.Errorf("tier %s exited unexpectedly: %v", p.name, p.waitErr)
		}
	}
	return nil
}
