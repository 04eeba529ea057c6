package operator

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

const managerName = "cloudflare-zero-trust-operator"

var workerNames = []string{"cloudflare-zero-trust-kube-worker", "cloudflare-zero-trust-cloudflare-worker"}

func envOf(c corev1.Container) map[string]corev1.EnvVar {
	out := map[string]corev1.EnvVar{}
	for _, e := range c.Env {
		out[e.Name] = e
	}
	return out
}

// The manager keeps the worker Deployments and applies the OperatorConfig
// (which starts without any status: PITFALLS 8) only when its generation
// changes; the OperatorConfig's status says what happened.
func TestOperatorConfigAndWorkers(t *testing.T) {
	w := newWorld(t, "opcfg")
	// No controller rolls Deployments out on the test apiserver: do not
	// wait for it long.
	w.env["ROLLOUT_TIMEOUT_SECONDS"] = "1"
	deps := h.Kube().AppsV1().Deployments(h.Namespace)
	t.Cleanup(func() {
		for _, n := range append([]string{managerName}, workerNames...) {
			_ = deps.Delete(w.ctx, n, metav1.DeleteOptions{})
		}
		_ = w.res(configGVR, h.Namespace).Delete(w.ctx, "operator-config", metav1.DeleteOptions{})
	})
	manifest, err := os.ReadFile(filepath.Join(h.Root, "deploy", "manager.yaml"))
	require.NoError(t, err)
	w.apply(string(manifest))

	// No OperatorConfig: the manager still creates the workers.
	w.run(managerPlaybook)
	mgr, err := deps.Get(w.ctx, managerName, metav1.GetOptions{})
	require.NoError(t, err)
	for i, name := range workerNames {
		d, err := deps.Get(w.ctx, name, metav1.GetOptions{})
		require.NoError(t, err, name)
		require.Len(t, d.OwnerReferences, 1)
		require.Equal(t, mgr.UID, d.OwnerReferences[0].UID)
		require.Equal(t, "Deployment", d.OwnerReferences[0].Kind)
		c := d.Spec.Template.Spec.Containers[0]
		require.Equal(t, mgr.Spec.Template.Spec.Containers[0].Image, c.Image)
		require.Equal(t, mgr.Spec.Template.Spec.ServiceAccountName, d.Spec.Template.Spec.ServiceAccountName)
		require.Equal(t, []string{"kube_worker", "cloudflare_worker"}[i], envOf(c)["ROLE"].Value)
		require.Equal(t, "metadata.name", envOf(c)["POD_NAME"].ValueFrom.FieldRef.FieldPath)
		require.Equal(t, []string{"kube-worker", "cloudflare-worker"}[i], d.Spec.Selector.MatchLabels["app.kubernetes.io/component"])
		require.Equal(t, d.Spec.Selector.MatchLabels["app.kubernetes.io/component"], d.Spec.Template.Labels["app.kubernetes.io/component"])
		require.True(t, *c.SecurityContext.ReadOnlyRootFilesystem)
	}
	kw1, _ := deps.Get(w.ctx, workerNames[0], metav1.GetOptions{})

	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec:
  replicas: 2
  imagePullPolicy: Always
  resources:
    requests: {cpu: 100m, memory: 128Mi}
  nodeSelector: {kubernetes.io/os: linux}
  tolerations: [{key: dedicated, operator: Equal, value: infra, effect: NoSchedule}]
  priorityClassName: system-cluster-critical
  podLabels: {team: platform}
  podAnnotations: {prometheus.io/scrape: "true"}
  environmentVariables: {pollIntervalSeconds: 30, logLevel: DEBUG, watchNamespaces: "a,b"}`)
	w.run(managerPlaybook)

	mgr, err = deps.Get(w.ctx, managerName, metav1.GetOptions{})
	require.NoError(t, err)
	ps := mgr.Spec.Template.Spec
	require.EqualValues(t, 2, *mgr.Spec.Replicas)
	require.Equal(t, corev1.PullAlways, ps.Containers[0].ImagePullPolicy)
	require.Equal(t, "128Mi", ps.Containers[0].Resources.Requests.Memory().String())
	require.Equal(t, map[string]string{"kubernetes.io/os": "linux"}, ps.NodeSelector)
	require.Len(t, ps.Tolerations, 1)
	require.Equal(t, "system-cluster-critical", ps.PriorityClassName)
	require.Equal(t, "platform", mgr.Spec.Template.Labels["team"])
	require.Equal(t, "manager", mgr.Spec.Template.Labels["app.kubernetes.io/component"])
	require.Equal(t, "true", mgr.Spec.Template.Annotations["prometheus.io/scrape"])
	env := envOf(ps.Containers[0])
	require.Equal(t, "30", env["POLL_INTERVAL_SECONDS"].Value)
	require.Equal(t, "DEBUG", env["LOG_LEVEL"].Value)
	require.Equal(t, "a,b", env["WATCH_NAMESPACES"].Value)
	require.Equal(t, "manager", env["ROLE"].Value)

	// The workers follow the manager's new pod template.
	kw, err := deps.Get(w.ctx, workerNames[0], metav1.GetOptions{})
	require.NoError(t, err)
	require.NotEqual(t, kw1.ResourceVersion, kw.ResourceVersion)
	require.Equal(t, map[string]string{"kubernetes.io/os": "linux"}, kw.Spec.Template.Spec.NodeSelector)
	require.Equal(t, "DEBUG", envOf(kw.Spec.Template.Spec.Containers[0])["LOG_LEVEL"].Value)
	require.Equal(t, "kube_worker", envOf(kw.Spec.Template.Spec.Containers[0])["ROLE"].Value)

	cfg := w.get(configGVR, h.Namespace, "operator-config")
	gen := cfg.GetGeneration()
	observed, _, _ := unstructured.NestedInt64(cfg.Object, "status", "observedGeneration")
	require.Equal(t, gen, observed)
	ready, _, _ := unstructured.NestedBool(cfg.Object, "status", "deploymentReady")
	require.False(t, ready) // no controllers run on the test apiserver
	require.Equal(t, map[string]string{"Applied": "ConfigurationApplied", "Ready": "RolloutNotComplete"}, conditionReasons(cfg))
	applied, _, _ := unstructured.NestedString(cfg.Object, "status", "lastAppliedTime")
	require.NotEmpty(t, applied)

	// Same generation: nothing is written, by the manager or the kube_worker.
	w.run(managerPlaybook)
	w.run(kubeWorker)
	again, err := deps.Get(w.ctx, managerName, metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, mgr.ResourceVersion, again.ResourceVersion)
	kwAgain, _ := deps.Get(w.ctx, workerNames[0], metav1.GetOptions{})
	require.Equal(t, kw.ResourceVersion, kwAgain.ResourceVersion)
	require.Equal(t, cfg.GetResourceVersion(), w.get(configGVR, h.Namespace, "operator-config").GetResourceVersion())

	// A new generation that drops settings removes them again; the
	// kube_worker applies it too.
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: ` + h.Namespace + `}
spec:
  replicas: 1
  environmentVariables: {logLevel: INFO}`)
	w.run(kubeWorker)
	mgr, err = deps.Get(w.ctx, managerName, metav1.GetOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 1, *mgr.Spec.Replicas)
	require.Empty(t, mgr.Spec.Template.Spec.NodeSelector)
	require.Empty(t, mgr.Spec.Template.Spec.Tolerations)
	require.Empty(t, mgr.Spec.Template.Spec.PriorityClassName)
	require.NotContains(t, mgr.Spec.Template.Labels, "team")
	require.Empty(t, mgr.Spec.Template.Spec.Containers[0].Resources.Requests)
	require.Equal(t, "INFO", envOf(mgr.Spec.Template.Spec.Containers[0])["LOG_LEVEL"].Value)
	cfg = w.get(configGVR, h.Namespace, "operator-config")
	observed, _, _ = unstructured.NestedInt64(cfg.Object, "status", "observedGeneration")
	require.Equal(t, cfg.GetGeneration(), observed)

	w.run(managerPlaybook)
	kw, err = deps.Get(w.ctx, workerNames[0], metav1.GetOptions{})
	require.NoError(t, err)
	require.Empty(t, kw.Spec.Template.Spec.NodeSelector)
	requireDeploymentSecure(t, mgr)
}

func conditionReasons(o *unstructured.Unstructured) map[string]string {
	out := map[string]string{}
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		m := c.(map[string]any)
		out[m["type"].(string)] = m["reason"].(string)
	}
	return out
}

// requireDeploymentSecure checks the hardening the manifest promises.
func requireDeploymentSecure(t *testing.T, d *appsv1.Deployment) {
	t.Helper()
	ps := d.Spec.Template.Spec
	require.True(t, *ps.SecurityContext.RunAsNonRoot)
	require.Equal(t, corev1.SeccompProfileTypeRuntimeDefault, ps.SecurityContext.SeccompProfile.Type)
	sc := ps.Containers[0].SecurityContext
	require.True(t, *sc.ReadOnlyRootFilesystem)
	require.False(t, *sc.AllowPrivilegeEscalation)
	require.Equal(t, []corev1.Capability{"ALL"}, sc.Capabilities.Drop)
}

// reconcile.yml runs the tier ROLE names, and refuses an unknown one.
func TestReconcileDispatch(t *testing.T) {
	w := newWorld(t, "dispatch")
	w.apply(route(w.ns, "r", map[string]string{"enabled": "true", "hostname": "dispatch.example.com"}))
	out, code := w.runCode(reconcile, map[string]string{"ROLE": "kube_worker"})
	require.Equal(t, 0, code, out)
	require.Len(t, w.tasks(), 1)
	out, code = w.runCode(reconcile, map[string]string{"ROLE": "cloudflare_worker"})
	require.Equal(t, 0, code, out)
	w.converge()
	require.NotNil(t, w.ingress(w.sim.TunnelID, "dispatch.example.com"))

	out, code = w.runCode(reconcile, map[string]string{"ROLE": "janitor"})
	require.NotEqual(t, 0, code)
	require.Contains(t, out, "ROLE must be one of manager, kube_worker, cloudflare_worker, not 'janitor'")
}

// Applying a new OperatorConfig generation waits for the manager
// Deployment's rollout, so the status written at the end of that same run
// says the Deployment is Ready. A second OperatorConfig in the namespace is
// refused in its status. Workers of a manager without POLL_INTERVAL_SECONDS
// get the default resync interval.
func TestOperatorConfigWaitsForRolloutAndIsASingleton(t *testing.T) {
	w := newWorld(t, "rollout")
	deps := h.Kube().AppsV1().Deployments(h.Namespace)
	t.Cleanup(func() {
		for _, n := range append([]string{managerName}, workerNames...) {
			_ = deps.Delete(w.ctx, n, metav1.DeleteOptions{})
		}
		for _, n := range []string{"operator-config", "zz-second"} {
			_ = w.res(configGVR, h.Namespace).Delete(w.ctx, n, metav1.DeleteOptions{})
		}
	})
	manifest, err := os.ReadFile(filepath.Join(h.Root, "deploy", "manager.yaml"))
	require.NoError(t, err)
	noPoll := strings.Replace(string(manifest), "            - name: POLL_INTERVAL_SECONDS\n              value: \"60\"\n", "", 1)
	require.NotEqual(t, string(manifest), noPoll)
	w.apply(noPoll, `apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: operator-config, namespace: `+h.Namespace+`}
spec: {replicas: 2}`)

	// Play the Deployment controller: once the manager has applied the new
	// spec, report the rollout as complete.
	stop := make(chan struct{})
	rolled := make(chan struct{})
	go func() {
		defer close(rolled)
		for {
			select {
			case <-stop:
				return
			case <-time.After(100 * time.Millisecond):
			}
			d, err := deps.Get(w.ctx, managerName, metav1.GetOptions{})
			if err != nil || d.Spec.Replicas == nil || *d.Spec.Replicas != 2 {
				continue
			}
			d.Status = appsv1.DeploymentStatus{ObservedGeneration: d.Generation, Replicas: 2, UpdatedReplicas: 2, ReadyReplicas: 2, AvailableReplicas: 2}
			if _, err := deps.UpdateStatus(w.ctx, d, metav1.UpdateOptions{}); err == nil {
				return
			}
		}
	}()
	env := map[string]string{"ROLLOUT_TIMEOUT_SECONDS": "60"}
	for k, v := range w.env {
		env[k] = v
	}
	out, code := h.RunPlaybook(w.ctx, managerPlaybook, env)
	close(stop)
	<-rolled
	require.Equal(t, 0, code, out)
	require.Contains(t, out, "Deployment "+managerName+" rolled out")
	cfg := w.get(configGVR, h.Namespace, "operator-config")
	require.Equal(t, map[string]string{"Applied": "ConfigurationApplied", "Ready": "DeploymentReady"}, conditionReasons(cfg))
	ready, _, _ := unstructured.NestedBool(cfg.Object, "status", "deploymentReady")
	require.True(t, ready)

	for _, name := range workerNames {
		d, err := deps.Get(w.ctx, name, metav1.GetOptions{})
		require.NoError(t, err)
		require.Equal(t, "60", envOf(d.Spec.Template.Spec.Containers[0])["POLL_INTERVAL_SECONDS"].Value, name)
	}

	// A second OperatorConfig is not applied, and says so.
	time.Sleep(1100 * time.Millisecond) // a later creationTimestamp (seconds)
	w.apply(`apiVersion: cfzt.cloudflare.com/v1alpha1
kind: CloudflareZeroTrustOperatorConfig
metadata: {name: zz-second, namespace: ` + h.Namespace + `}
spec: {replicas: 5}`)
	w.run(managerPlaybook)
	mgr, err := deps.Get(w.ctx, managerName, metav1.GetOptions{})
	require.NoError(t, err)
	require.EqualValues(t, 2, *mgr.Spec.Replicas)
	second := w.get(configGVR, h.Namespace, "zz-second")
	require.Equal(t, map[string]string{"Applied": "DuplicateOperatorConfig"}, conditionReasons(second))
	rv := second.GetResourceVersion()
	w.run(managerPlaybook)
	w.run(kubeWorker)
	require.Equal(t, rv, w.get(configGVR, h.Namespace, "zz-second").GetResourceVersion(), "written once")
}
