// Package watch is the end-to-end test of cfzt-runner's watch mode: the
// kube_worker and cloudflare_worker tiers run as long-lived
// `cfzt-runner --watch --interval 3600` processes against a real
// kube-apiserver (as the operator ServiceAccount, with the shipped RBAC) and
// the Cloudflare simulator, and an annotated HTTPRoute must reach the
// simulator through the event path, long before the interval.
package watch

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cfzt/cfzt-runner/internal/e2e"
	"github.com/cfzt/cfzt-runner/internal/testbin"
)

var h *e2e.Harness

func TestMain(m *testing.M) {
	e2e.Main(m, func(x *e2e.Harness) { h = x })
}

var routeGVR = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}

// Annotating an HTTPRoute puts its tunnel rule into Cloudflare within
// seconds although both tiers only poll every hour: the change travels by
// informers (route → kube_worker → CloudflareTask → cloudflare_worker →
// status → kube_worker).
func TestWatchAnnotatedRouteReachesCloudflare(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	sim := e2e.StartSim(t)
	ns := "watch-e2e"
	require.NoError(t, h.CreateCredentialSecret(ctx, ns, "cf-token", sim.Token))
	require.NoError(t, h.Cluster.ApplyYAML(ctx, fmt.Sprintf(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustTenant
metadata: {name: acme, namespace: %s}
spec:
  accountId: %s
  tunnelId: %s
  credentialRef: {name: cf-token}
---
apiVersion: gateway.networking.k8s.io/v1
kind: HTTPRoute
metadata: {name: web, namespace: %s}
spec:
  parentRefs: [{name: gw}]
  rules:
    - backendRefs: [{name: web, port: 8080}]
`, ns, sim.AccountID, sim.TunnelID, ns)))

	env := map[string]string{"WATCH_NAMESPACES": ns, "CLOUDFLARE_API_BASE": sim.Base}
	kw := start(t, "kube_worker", env, "cfzt-kube-worker")
	cw := start(t, "cloudflare_worker", env, "cfzt-cloudflare-worker")
	for _, p := range []*proc{kw, cw} {
		p.WaitFor(0, 90*time.Second, "a first cycle", func(ev event) bool { return ev["event"] == "cycle_end" && ev["result"] == "ok" })
	}
	kw.WaitFor(0, 30*time.Second, "the HTTPRoute informer", func(ev event) bool {
		return ev["event"] == "watch_started" && ev["kind"] == "gateway.networking.k8s.io/v1/HTTPRoute"
	})
	cw.WaitFor(0, 30*time.Second, "the CloudflareTask informer", func(ev event) bool {
		return ev["event"] == "watch_started" && ev["kind"] == "cfzt.cloudflare.com/v1alpha1/CloudflareTask"
	})
	time.Sleep(2 * time.Second) // let the follow-up cycles of the first writes finish

	hostname := "watch.example.com"
	patch := fmt.Sprintf(`{"metadata":{"annotations":{"cfzt.cloudflare.com/enabled":"true","cfzt.cloudflare.com/hostname":%q}}}`, hostname)
	t0 := time.Now()
	_, err := h.Dynamic().Resource(routeGVR).Namespace(ns).Patch(ctx, "web", types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	require.NoError(t, err)
	var rule map[string]any
	for rule == nil {
		if rule = ingress(sim, hostname); rule == nil {
			require.Less(t, time.Since(t0), 60*time.Second, "no tunnel rule for %s", hostname)
			time.Sleep(20 * time.Millisecond)
		}
	}
	latency := time.Since(t0)
	t.Logf("annotation to Cloudflare tunnel rule: %s (interval 3600s)", latency.Round(time.Millisecond))
	require.Equal(t, "http://web."+ns+".svc.cluster.local:8080", rule["service"])
	require.Less(t, latency, 30*time.Second, "the event path, not the interval")
	for _, p := range []*proc{kw, cw} {
		require.Positive(t, p.Count(func(ev event) bool { return ev["event"] == "cycle_start" && ev["trigger"] == "watch" }),
			"%s ran no watch-triggered cycle", p.Name())
	}

	for _, p := range []*proc{kw, cw} {
		for _, ev := range p.Events() {
			if e := ev["event"]; e == "watch_started" || e == "watch_forbidden" || e == "watch_kind_unavailable" {
				t.Logf("%s: %s %v in %v", p.Name(), e, ev["kind"], ev["namespace"])
			}
		}
	}

	// Both tiers stop cleanly on SIGTERM.
	for _, p := range []*proc{kw, cw} {
		p.Signal(syscall.SIGTERM)
	}
	for _, p := range []*proc{kw, cw} {
		require.Equal(t, 0, p.Exit(60*time.Second), "%s exit code", p.Name())
	}
}

// ingress returns the simulator's tunnel rule for hostname, or nil.
func ingress(sim *e2e.Sim, hostname string) map[string]any {
	for _, tun := range sim.State().Tunnels {
		if tun.Tunnel.ID != sim.TunnelID || tun.Configuration.Config == nil {
			continue
		}
		rules, _ := tun.Configuration.Config["ingress"].([]any)
		for _, r := range rules {
			if m, ok := r.(map[string]any); ok && m["hostname"] == hostname {
				return m
			}
		}
	}
	return nil
}

type (
	event = testbin.Event
	proc  = testbin.Proc
)

// start runs ansible/playbooks/reconcile.yml as tier role in watch mode
// with an interval of one hour.
func start(t *testing.T, role string, env map[string]string, pod string) *proc {
	t.Helper()
	merged := h.BaseEnv()
	for k, v := range env {
		merged[k] = v
	}
	merged["ROLE"], merged["POD_NAME"] = role, pod
	var cmdEnv []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if _, set := merged[k]; set || strings.HasPrefix(k, "K8S_AUTH_") || strings.HasPrefix(k, "ANSIBLE_") ||
			k == "KUBECONFIG" || k == "POLL_INTERVAL_SECONDS" || k == "REPLICAS" || k == "LOG_LEVEL" {
			continue
		}
		cmdEnv = append(cmdEnv, kv)
	}
	for k, v := range merged {
		cmdEnv = append(cmdEnv, k+"="+v)
	}
	cmd := exec.Command(h.Runner, "--log-format", "json", "--watch", "--interval", "3600", "ansible/playbooks/reconcile.yml")
	cmd.Dir = h.Root
	cmd.Env = cmdEnv
	return testbin.StartJSON(t, role, cmd)
}
