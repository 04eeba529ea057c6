package operator

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/cfzt/cfzt-runner/internal/testbin"
)

// installManager applies deploy/manager.yaml and removes the three
// Deployments and the OperatorConfig when the test ends.
func installManager(w *world) {
	w.t.Helper()
	deps := h.Kube().AppsV1().Deployments(h.Namespace)
	w.t.Cleanup(func() {
		for _, n := range append([]string{managerName}, workerNames...) {
			_ = deps.Delete(w.ctx, n, metav1.DeleteOptions{})
		}
		_ = w.res(configGVR, h.Namespace).Delete(w.ctx, "operator-config", metav1.DeleteOptions{})
		_ = h.Kube().CoordinationV1().Leases(h.Namespace).Delete(w.ctx, "cfzt-manager", metav1.DeleteOptions{})
	})
	manifest, err := os.ReadFile(filepath.Join(h.Root, "deploy", "manager.yaml"))
	require.NoError(w.t, err)
	w.apply(string(manifest))
}

// threeDeployments reads the manager and both worker Deployments.
func threeDeployments(w *world) []*appsv1.Deployment {
	w.t.Helper()
	var out []*appsv1.Deployment
	for _, n := range append([]string{managerName}, workerNames...) {
		d, err := h.Kube().AppsV1().Deployments(h.Namespace).Get(w.ctx, n, metav1.GetOptions{})
		require.NoError(w.t, err, n)
		out = append(out, d)
	}
	return out
}

// Removing a key anywhere inside a pod-template setting of the
// OperatorConfig removes it from the manager and from both worker
// Deployments: one nodeSelector label, one affinity term, one toleration,
// one resources entry, one pod annotation or label, one environment
// variable (which falls back to the manifest's value, or goes away when the
// manifest had none). A JSON merge patch would have kept them all.
func TestOperatorConfigKeyRemovalReachesEveryDeployment(t *testing.T) {
	w := newWorld(t, "opcfg-removal")
	w.env["ROLLOUT_TIMEOUT_SECONDS"] = "1"
	installManager(w)
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec:
  resources:
    requests: {cpu: 100m, memory: 128Mi}
    limits: {cpu: "1", memory: 512Mi}
  nodeSelector: {kubernetes.io/os: linux, pool: infra}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: zone, operator: In, values: [a, b]}]
      preferredDuringSchedulingIgnoredDuringExecution:
        - weight: 10
          preference: {matchExpressions: [{key: disk, operator: In, values: [ssd]}]}
  tolerations:
    - {key: dedicated, operator: Equal, value: infra, effect: NoSchedule}
    - {key: spot, operator: Exists, effect: NoExecute}
  podLabels: {team: platform, tier: ops}
  podAnnotations: {prometheus.io/scrape: "true", example.com/owner: platform}
  environmentVariables: {logLevel: DEBUG, watchNamespaces: "a,b", resyncIntervalSeconds: 600}`)
	w.run(managerPlaybook)
	for _, d := range threeDeployments(w) {
		ps := d.Spec.Template.Spec
		c := ps.Containers[0]
		require.Equal(t, map[string]string{"kubernetes.io/os": "linux", "pool": "infra"}, ps.NodeSelector, d.Name)
		require.NotNil(t, ps.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, d.Name)
		require.Len(t, ps.Tolerations, 2, d.Name)
		require.Equal(t, "512Mi", c.Resources.Limits.Memory().String(), d.Name)
		require.Equal(t, "ops", d.Spec.Template.Labels["tier"], d.Name)
		require.Equal(t, "platform", d.Spec.Template.Annotations["example.com/owner"], d.Name)
		env := envOf(c)
		require.Equal(t, "DEBUG", env["LOG_LEVEL"].Value, d.Name)
		require.Equal(t, "a,b", env["WATCH_NAMESPACES"].Value, d.Name)
		require.Equal(t, "600", env["RESYNC_INTERVAL_SECONDS"].Value, d.Name)
	}

	// Every setting loses a key; environmentVariables loses all of them.
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec:
  resources:
    requests: {cpu: 100m}
  nodeSelector: {kubernetes.io/os: linux}
  affinity:
    nodeAffinity:
      requiredDuringSchedulingIgnoredDuringExecution:
        nodeSelectorTerms:
          - matchExpressions: [{key: zone, operator: In, values: [a]}]
  tolerations:
    - {key: dedicated, operator: Equal, value: infra, effect: NoSchedule}
  podLabels: {team: platform}
  podAnnotations: {prometheus.io/scrape: "true"}`)
	w.run(managerPlaybook)
	for _, d := range threeDeployments(w) {
		ps := d.Spec.Template.Spec
		c := ps.Containers[0]
		require.Equal(t, map[string]string{"kubernetes.io/os": "linux"}, ps.NodeSelector, d.Name)
		require.Nil(t, ps.Affinity.NodeAffinity.PreferredDuringSchedulingIgnoredDuringExecution, d.Name)
		terms := ps.Affinity.NodeAffinity.RequiredDuringSchedulingIgnoredDuringExecution.NodeSelectorTerms
		require.Len(t, terms, 1, d.Name)
		require.Equal(t, []string{"a"}, terms[0].MatchExpressions[0].Values, d.Name)
		require.Equal(t, []corev1.Toleration{{Key: "dedicated", Operator: "Equal", Value: "infra", Effect: "NoSchedule"}}, ps.Tolerations, d.Name)
		require.Empty(t, c.Resources.Limits, d.Name)
		require.Equal(t, corev1.ResourceList{corev1.ResourceCPU: c.Resources.Requests[corev1.ResourceCPU]}, c.Resources.Requests, d.Name)
		require.Equal(t, "100m", c.Resources.Requests.Cpu().String(), d.Name)
		require.NotContains(t, d.Spec.Template.Labels, "tier", d.Name)
		require.Equal(t, "platform", d.Spec.Template.Labels["team"], d.Name)
		require.NotContains(t, d.Spec.Template.Annotations, "example.com/owner", d.Name)
		require.Equal(t, "true", d.Spec.Template.Annotations["prometheus.io/scrape"], d.Name)
		env := envOf(c)
		// deploy/manager.yaml's values come back.
		require.Equal(t, "INFO", env["LOG_LEVEL"].Value, d.Name)
		require.Equal(t, "", env["WATCH_NAMESPACES"].Value, d.Name)
		require.Contains(t, env, "WATCH_NAMESPACES", d.Name)
		require.Equal(t, "36000", env["RESYNC_INTERVAL_SECONDS"].Value, d.Name)
		requireDeploymentSecure(t, d)
	}

	// Removing whole settings removes them; the Deployments are as the
	// manifest made them again.
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec: {replicas: 1}`)
	w.run(managerPlaybook)
	for _, d := range threeDeployments(w) {
		ps := d.Spec.Template.Spec
		require.Empty(t, ps.NodeSelector, d.Name)
		require.Nil(t, ps.Affinity, d.Name)
		require.Empty(t, ps.Tolerations, d.Name)
		require.Empty(t, ps.Containers[0].Resources.Requests, d.Name)
		require.NotContains(t, d.Spec.Template.Labels, "team", d.Name)
		require.Empty(t, d.Spec.Template.Annotations, d.Name)
		require.Equal(t, "INFO", envOf(ps.Containers[0])["LOG_LEVEL"].Value, d.Name)
	}
}

// spec.replicas above 1 sets REPLICAS on the manager, which turns leader
// election on: two managers started with the Deployment's environment
// elect one leader through the cfzt-manager Lease, and only the leader
// runs cycles. The workers, one replica each, carry REPLICAS=1.
func TestOperatorConfigReplicasTurnOnLeaderElection(t *testing.T) {
	w := newWorld(t, "opcfg-replicas")
	w.env["ROLLOUT_TIMEOUT_SECONDS"] = "1"
	installManager(w)
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec: {replicas: 2}`)
	w.run(managerPlaybook)
	deps := threeDeployments(w)
	mgr := deps[0]
	require.EqualValues(t, 2, *mgr.Spec.Replicas)
	menv := envOf(mgr.Spec.Template.Spec.Containers[0])
	require.Equal(t, "2", menv["REPLICAS"].Value)
	for _, d := range deps[1:] {
		require.Equal(t, "1", envOf(d.Spec.Template.Spec.Containers[0])["REPLICAS"].Value, d.Name)
	}

	// Two manager pods, as the Deployment would start them: the
	// Deployment's plain environment values, its command's flags.
	c := mgr.Spec.Template.Spec.Containers[0]
	start := func(pod string) *testbin.Proc {
		env := h.BaseEnv()
		for k, v := range w.env {
			env[k] = v
		}
		for _, e := range c.Env {
			if e.ValueFrom == nil && e.Name != "CLOUDFLARE_API_BASE" {
				env[e.Name] = e.Value
			}
		}
		env["POD_NAME"] = pod
		env["WATCH_NAMESPACES"] = w.ns
		var cmdEnv []string
		for _, kv := range os.Environ() {
			k, _, _ := strings.Cut(kv, "=")
			if _, set := env[k]; set || strings.HasPrefix(k, "K8S_AUTH_") || strings.HasPrefix(k, "ANSIBLE_") || k == "KUBECONFIG" {
				continue
			}
			cmdEnv = append(cmdEnv, kv)
		}
		for k, v := range env {
			cmdEnv = append(cmdEnv, k+"="+v)
		}
		var args []string
		for _, a := range c.Command[1:] {
			if strings.HasPrefix(a, "--interval=") {
				a = "--interval=3600"
			}
			if strings.HasPrefix(a, "/ansible/") {
				a = strings.TrimPrefix(a, "/")
			}
			args = append(args, a)
		}
		args = append([]string{"--log-format", "json", "--leader-elect-retry-period", "200ms"}, args...)
		cmd := exec.Command(h.Runner, args...)
		cmd.Dir = h.Root
		cmd.Env = cmdEnv
		return testbin.StartJSON(t, pod, cmd)
	}
	a := start("manager-a")
	b := start("manager-b")
	for _, p := range []*testbin.Proc{a, b} {
		ev, _ := p.WaitFor(0, 30*time.Second, "the start", func(ev testbin.Event) bool { return ev["event"] == "started" })
		require.Equal(t, true, ev["leader_elect"], p.Name())
	}
	// Each sees who leads; the one that does runs a cycle, the other none.
	var leader string
	for _, p := range []*testbin.Proc{a, b} {
		ev, _ := p.WaitFor(0, 60*time.Second, "a leader", func(ev testbin.Event) bool { return ev["event"] == "leader" })
		if leader == "" {
			leader = ev.Str("identity")
		}
		require.Equal(t, leader, ev.Str("identity"), "%s sees another leader", p.Name())
	}
	lead, follow := a, b
	if leader == "manager-b" {
		lead, follow = b, a
	}
	lead.WaitFor(0, 120*time.Second, "a cycle of the leader", func(ev testbin.Event) bool { return ev["event"] == "cycle_end" })
	require.Zero(t, follow.Count(func(ev testbin.Event) bool { return ev["event"] == "cycle_start" }),
		"the follower %s ran a cycle while %s leads", follow.Name(), leader)
	lease, err := h.Kube().CoordinationV1().Leases(h.Namespace).Get(w.ctx, "cfzt-manager", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, leader, *lease.Spec.HolderIdentity)

	// The leader watches the worker Deployments by name: one deleted is
	// back long before the one-hour interval, recreated by the leader.
	lead.WaitFor(0, 60*time.Second, "the watch of a worker Deployment", func(ev testbin.Event) bool {
		return ev["event"] == "watch_started" && ev["kind"] == "apps/v1/Deployment" && ev["name"] == workerNames[0]
	})
	api := h.Kube().AppsV1().Deployments(h.Namespace)
	old, err := api.Get(w.ctx, workerNames[0], metav1.GetOptions{})
	require.NoError(t, err)
	require.NoError(t, api.Delete(w.ctx, workerNames[0], metav1.DeleteOptions{}))
	deadline := time.Now().Add(90 * time.Second)
	for {
		d, err := api.Get(w.ctx, workerNames[0], metav1.GetOptions{})
		if err == nil && d.UID != old.UID {
			break
		}
		require.True(t, time.Now().Before(deadline), "%s not recreated (interval 3600s)", workerNames[0])
		time.Sleep(50 * time.Millisecond)
	}
	require.Zero(t, follow.Count(func(ev testbin.Event) bool { return ev["event"] == "cycle_start" }),
		"the follower %s ran a cycle", follow.Name())
	for _, p := range []*testbin.Proc{a, b} {
		p.Signal(syscall.SIGTERM)
	}
	for _, p := range []*testbin.Proc{a, b} {
		require.Equal(t, 0, p.Exit(60*time.Second), p.Name())
	}

	// Back to one replica: REPLICAS=1, election off.
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec: {replicas: 1}`)
	w.run(managerPlaybook)
	mgr = threeDeployments(w)[0]
	require.EqualValues(t, 1, *mgr.Spec.Replicas)
	require.Equal(t, "1", envOf(mgr.Spec.Template.Spec.Containers[0])["REPLICAS"].Value)
}

// Attack: whoever edits the manager Deployment's applied-config annotation
// (it is read back on the next generation) tries to have the operator
// "restore" variables it never managed: ROLE, and a K8S_AUTH_HOST that
// would send the workers' credentials elsewhere, and to rename a managed
// one into ROLE. Only the variables the OperatorConfig manages are ever
// restored, under their own names.
func TestOperatorConfigTamperedAppliedAnnotation(t *testing.T) {
	w := newWorld(t, "opcfg-tamper")
	w.env["ROLLOUT_TIMEOUT_SECONDS"] = "1"
	installManager(w)
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec:
  environmentVariables: {logLevel: DEBUG}`)
	w.run(managerPlaybook)

	evil := `{"env": {"ROLE": {"name": "ROLE", "value": "cloudflare_worker"},` +
		` "K8S_AUTH_HOST": {"name": "K8S_AUTH_HOST", "value": "https://attacker.example"},` +
		` "LOG_LEVEL": {"name": "ROLE", "value": "kube_worker"}, "WATCH_NAMESPACES": "junk"},` +
		` "fields": ["containers", "volumes"], "podLabels": "app.kubernetes.io/name"}`
	body, err := json.Marshal(map[string]any{"metadata": map[string]any{"annotations": map[string]any{"cfzt.cloudflare.com/applied-config": evil}}})
	require.NoError(t, err)
	_, err = h.Kube().AppsV1().Deployments(h.Namespace).Patch(w.ctx, managerName, types.MergePatchType, body, metav1.PatchOptions{})
	require.NoError(t, err)

	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec: {replicas: 1}`)
	w.run(managerPlaybook)
	for i, d := range threeDeployments(w) {
		c := d.Spec.Template.Spec.Containers[0]
		env := envOf(c)
		require.Equal(t, []string{"manager", "kube_worker", "cloudflare_worker"}[i], env["ROLE"].Value, d.Name)
		require.NotContains(t, env, "K8S_AUTH_HOST", d.Name)
		n := 0
		for _, e := range c.Env {
			if e.Name == "ROLE" {
				n++
			}
		}
		require.Equal(t, 1, n, "%s has %d ROLE variables", d.Name, n)
		require.Len(t, c.VolumeMounts, 1, d.Name)
		require.Len(t, d.Spec.Template.Spec.Volumes, 1, d.Name)
		require.Equal(t, "cfzt-operator", d.Spec.Template.Labels["app.kubernetes.io/name"], d.Name)
	}
}
