// Command realops runs a real operator-sdk Ansible operator (its
// watches.yaml, roles, playbooks and config/) under one runtime,
// ansible-operator or `cfzt-runner operator`, on a fresh test cluster, and
// writes what happened as JSON, so that two runtimes can be compared
// (issue 22):
//
//	realops run -src DIR -runtime ansible-operator|cfzt -cr FILE -out FILE.json [flags]
//	realops compare A.json B.json     # a Markdown report of the differences
//
// The cluster (internal/kubetest) has kube-controller-manager,
// kube-scheduler and one Node served by the kubelet stand-in
// (internal/kubetest/kubelet), so the operator's Deployments and
// StatefulSets get pods that become Running and Ready, and hostPath
// PersistentVolumes for their claims. Every exec into a pod is answered by
// the harness (exit 0, no output) for both runtimes alike: nothing runs on
// the host. The operator's CRDs and its RBAC (config/rbac: role,
// role_binding, leader election, service_account) are applied as kustomize
// would (namePrefix and namespace of config/default), and the runtime runs
// with that ServiceAccount's token.
//
// Run it in its own network namespace: ansible-operator listens on fixed
// ports (8888, 5050), see tests/realops/run.sh.
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"gopkg.in/yaml.v3"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
)

func main() {
	if len(os.Args) < 2 {
		fmt.Fprintln(os.Stderr, "usage: realops run [flags] | realops compare A.json B.json")
		os.Exit(2)
	}
	var err error
	switch os.Args[1] {
	case "run":
		err = runCmd(os.Args[2:])
	case "compare":
		err = compareCmd(os.Args[2:])
	default:
		err = fmt.Errorf("unknown command %q", os.Args[1])
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "realops:", err)
		os.Exit(1)
	}
}

// Result is what one run records.
type Result struct {
	Operator string `json:"operator"`
	Runtime  string `json:"runtime"`
	Date     string `json:"date"`
	// FirstSuccessful is the time from the CR's creation to its first
	// Successful=True condition (seconds), -1 if never.
	FirstSuccessful float64 `json:"firstSuccessful"`
	// FirstFailure is the time to the first Failure=True condition, the
	// end of a first reconcile that failed (seconds), -1 if never.
	FirstFailure float64 `json:"firstFailure"`
	// Stopped is the time from the CR's creation to the last change of
	// the CR or of the objects, when the run ended without success.
	Stopped    float64 `json:"stopped"`
	StopReason string  `json:"stopReason"`
	// LastTask is the last task the runtime's log names.
	LastTask   string           `json:"lastTask"`
	FailedTask string           `json:"failedTask"`
	Conditions []map[string]any `json:"conditions"`
	// Status is the CR's status without its conditions.
	Status map[string]any `json:"status"`
	// Objects are the namespace's objects, normalised, by "Kind/name".
	Objects map[string]map[string]any `json:"objects"`
	Memory  Memory                    `json:"memory"`
	Delete  Deletion                  `json:"delete"`
	Log     string                    `json:"log"`
}

// Memory is the sampled memory of the runtime's process tree.
type Memory struct {
	PeakPrivateMiB float64 `json:"peakPrivateMiB"` // Private_Clean+Private_Dirty, summed over the tree
	PeakPSSMiB     float64 `json:"peakPssMiB"`
	PeakProcs      int     `json:"peakProcs"`
	Samples        int     `json:"samples"`
}

// Deletion is what deleting the CR did.
type Deletion struct {
	Finalizers []string `json:"finalizers"`
	// Gone is the time from the delete to the CR's disappearance
	// (seconds), -1 if it was still there at the deadline.
	Gone float64 `json:"gone"`
	// Remaining are the objects that still exist after the garbage
	// collector's pass.
	Remaining []string `json:"remaining"`
}

type runOpts struct {
	src, runtime, cr, out, ns, aoDir, cfzt, collections string
	timeout, quiet, deleteWait                          time.Duration
	env                                                 multi
	args                                                multi
}

type multi []string

func (m *multi) String() string     { return strings.Join(*m, ",") }
func (m *multi) Set(s string) error { *m = append(*m, s); return nil }

func runCmd(args []string) error {
	var o runOpts
	fs := flag.NewFlagSet("run", flag.ExitOnError)
	fs.StringVar(&o.src, "src", "", "the operator's source directory (watches.yaml, roles/, playbooks/, config/)")
	fs.StringVar(&o.runtime, "runtime", "", "ansible-operator or cfzt")
	fs.StringVar(&o.cr, "cr", "", "the CR to create (YAML)")
	fs.StringVar(&o.out, "out", "", "JSON result file (the runtime's log goes beside it, .log)")
	fs.StringVar(&o.ns, "ns", "", "namespace (default: config/default's namespace)")
	fs.StringVar(&o.aoDir, "ansible-operator", os.Getenv("CFZT_ANSIBLE_OPERATOR"), "ansible-operator's bin directory")
	fs.StringVar(&o.cfzt, "cfzt-runner", "", "the cfzt-runner binary")
	fs.StringVar(&o.collections, "collections", "", "ANSIBLE_COLLECTIONS_PATH for ansible-operator's runs (operator_sdk.util)")
	fs.DurationVar(&o.timeout, "timeout", 5*time.Minute, "bound on the wait for Successful")
	fs.DurationVar(&o.quiet, "quiet", 90*time.Second, "stop when nothing changed for this long after a Failure")
	fs.DurationVar(&o.deleteWait, "delete-wait", 2*time.Minute, "bound on the wait for the deleted CR to go")
	fs.Var(&o.env, "env", "NAME=VALUE for the runtime (repeatable; the Dockerfile's and manager.yaml's env)")
	fs.Var(&o.args, "arg", "extra runtime flag (repeatable; the Dockerfile's ENTRYPOINT flags)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if o.src == "" || o.cr == "" || o.out == "" || (o.runtime != "ansible-operator" && o.runtime != "cfzt") {
		return errors.New("run needs -src, -cr, -out and -runtime ansible-operator|cfzt")
	}
	res, err := run(o)
	if res != nil {
		data, jerr := json.MarshalIndent(res, "", "  ")
		if jerr != nil {
			return jerr
		}
		if werr := os.WriteFile(o.out, data, 0o644); werr != nil {
			return werr
		}
	}
	return err
}

// kustomizeDefault reads the namespace and namePrefix of config/default.
func kustomizeDefault(src string) (ns, prefix string, err error) {
	data, err := os.ReadFile(filepath.Join(src, "config", "default", "kustomization.yaml"))
	if err != nil {
		return "", "", err
	}
	var k struct {
		Namespace  string `yaml:"namespace"`
		NamePrefix string `yaml:"namePrefix"`
	}
	if err := yaml.Unmarshal(data, &k); err != nil {
		return "", "", fmt.Errorf("config/default/kustomization.yaml: %w", err)
	}
	return k.Namespace, k.NamePrefix, nil
}

// rbacYAML renders config/rbac's operator RBAC as kustomize would, with
// the namespace and the name prefix.
func rbacYAML(src, ns, prefix string) (string, error) {
	var out []string
	for _, f := range []string{"service_account.yaml", "role.yaml", "role_binding.yaml", "leader_election_role.yaml", "leader_election_role_binding.yaml"} {
		data, err := os.ReadFile(filepath.Join(src, "config", "rbac", f))
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return "", err
		}
		dec := yaml.NewDecoder(strings.NewReader(string(data)))
		for {
			var doc map[string]any
			if err := dec.Decode(&doc); err != nil {
				if errors.Is(err, io.EOF) {
					break
				}
				return "", fmt.Errorf("config/rbac/%s: %w", f, err)
			}
			if doc == nil {
				continue
			}
			md, _ := doc["metadata"].(map[string]any)
			if md == nil {
				continue
			}
			md["name"] = prefix + fmt.Sprint(md["name"])
			kind := fmt.Sprint(doc["kind"])
			if kind != "ClusterRole" && kind != "ClusterRoleBinding" {
				md["namespace"] = ns
			}
			if rr, ok := doc["roleRef"].(map[string]any); ok {
				rr["name"] = prefix + fmt.Sprint(rr["name"])
			}
			if subs, ok := doc["subjects"].([]any); ok {
				for _, s := range subs {
					if sm, ok := s.(map[string]any); ok && sm["kind"] == "ServiceAccount" {
						sm["name"] = prefix + fmt.Sprint(sm["name"])
						sm["namespace"] = ns
					}
				}
			}
			b, err := yaml.Marshal(doc)
			if err != nil {
				return "", err
			}
			out = append(out, string(b))
		}
	}
	return strings.Join(out, "---\n"), nil
}

func run(o runOpts) (*Result, error) {
	defNS, prefix, err := kustomizeDefault(o.src)
	if err != nil {
		return nil, err
	}
	if o.ns == "" {
		o.ns = defNS
	}
	sa := prefix + "controller-manager"
	cluster, err := kubetest.Start(kubetest.Options{OperatorNamespace: o.ns, OperatorServiceAccount: sa, Controllers: true, Scheduler: true})
	if err != nil {
		return nil, err
	}
	defer cluster.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), o.timeout+o.deleteWait+10*time.Minute)
	defer cancel()
	kube, err := kubernetes.NewForConfig(cluster.AdminConfig)
	if err != nil {
		return nil, err
	}
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	if err != nil {
		return nil, err
	}
	if err := prepareNode(ctx, cluster, kube); err != nil {
		return nil, err
	}
	if err := cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+o.ns+"\n"); err != nil {
		return nil, err
	}
	crds, _ := filepath.Glob(filepath.Join(o.src, "config", "crd", "bases", "*.yaml"))
	for _, f := range crds {
		data, err := os.ReadFile(f)
		if err != nil {
			return nil, err
		}
		if err := cluster.ApplyYAML(ctx, string(data)); err != nil {
			return nil, fmt.Errorf("%s: %w", f, err)
		}
	}
	rbac, err := rbacYAML(o.src, o.ns, prefix)
	if err != nil {
		return nil, err
	}
	if err := cluster.ApplyYAML(ctx, rbac); err != nil {
		return nil, fmt.Errorf("rbac: %w", err)
	}
	crData, err := os.ReadFile(o.cr)
	if err != nil {
		return nil, err
	}
	cr := &unstructured.Unstructured{}
	if err := yaml.Unmarshal(crData, &cr.Object); err != nil {
		return nil, fmt.Errorf("%s: %w", o.cr, err)
	}
	cr.SetNamespace(o.ns)
	disc, err := discovery.NewDiscoveryClientForConfig(cluster.AdminConfig)
	if err != nil {
		return nil, err
	}
	crGVR, err := resourceFor(disc, cr.GroupVersionKind())
	if err != nil {
		return nil, err
	}

	// The runtime.
	logPath := strings.TrimSuffix(o.out, ".json") + ".log"
	logFile, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	defer logFile.Close()
	home, err := os.MkdirTemp("", "realops-home-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(home)
	env := []string{
		"HOME=" + home, "KUBECONFIG=" + cluster.OperatorKubeconfig, "WATCH_NAMESPACE=" + o.ns,
		"ANSIBLE_ROLES_PATH=" + filepath.Join(o.src, "roles"), "ANSIBLE_GATHERING=explicit",
		"PATH=" + os.Getenv("PATH"), "TMPDIR=" + home,
	}
	var cmd *exec.Cmd
	flags := append([]string{"--watches-file=./watches.yaml", "--metrics-bind-address=127.0.0.1:18080", "--health-probe-bind-address=127.0.0.1:16789"}, o.args...)
	if o.runtime == "ansible-operator" {
		cmd = exec.Command(filepath.Join(o.aoDir, "ansible-operator"), append([]string{"run"}, flags...)...)
		env[len(env)-2] = "PATH=" + o.aoDir + ":" + os.Getenv("PATH")
		if o.collections != "" {
			env = append(env, "ANSIBLE_COLLECTIONS_PATH="+o.collections)
		}
	} else {
		cmd = exec.Command(o.cfzt, append([]string{"operator"}, flags...)...)
	}
	cmd.Env = append(env, o.env...)
	cmd.Dir = o.src
	cmd.Stdout, cmd.Stderr = logFile, logFile
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	exited := make(chan struct{})
	go func() { _ = cmd.Wait(); close(exited) }()
	defer func() {
		// ansible-runner starts ansible-playbook in a session of its own
		// (a pty): the whole tree goes, not only the process group.
		for _, pid := range tree(cmd.Process.Pid) {
			_ = syscall.Kill(pid, syscall.SIGKILL)
		}
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		<-exited
	}()
	mem := &sampler{pid: cmd.Process.Pid}
	stopSampling := mem.start()

	res := &Result{Runtime: o.runtime, Operator: strings.TrimSuffix(strings.TrimSuffix(filepath.Base(o.out), ".json"), "-"+o.runtime), Date: time.Now().UTC().Format(time.RFC3339), FirstSuccessful: -1, FirstFailure: -1, Stopped: -1, Log: logPath}
	// What exists before the CR (RBAC, the namespace's defaults) is not
	// the operator's output.
	baseline, err := dump(ctx, dyn, disc, o.ns, kube)
	if err != nil {
		return res, err
	}
	crs := dyn.Resource(crGVR).Namespace(o.ns)
	if _, err := crs.Create(ctx, cr, metav1.CreateOptions{}); err != nil {
		return res, err
	}
	created := time.Now()

	// Wait for Successful, the deadline, or quiet after a failure.
	lastSig, lastChange := "", time.Now()
	deadline := created.Add(o.timeout)
	for {
		select {
		case <-exited:
			res.StopReason = "the runtime exited"
		case <-time.After(time.Second):
		}
		if res.StopReason != "" {
			break
		}
		obj, err := crs.Get(ctx, cr.GetName(), metav1.GetOptions{})
		if err != nil {
			return res, err
		}
		conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
		if condTrue(conds, "Successful") {
			res.FirstSuccessful = time.Since(created).Seconds()
			res.StopReason = "Successful"
			break
		}
		if res.FirstFailure < 0 && condTrue(conds, "Failure") {
			res.FirstFailure = time.Since(created).Seconds()
		}
		sig := signature(ctx, dyn, disc, o.ns, obj)
		if sig != lastSig {
			if lastSig != "" {
				fmt.Fprintf(os.Stderr, "realops: %.0fs: changed: %s\n", time.Since(created).Seconds(), sigDiff(lastSig, sig))
			}
			lastSig, lastChange = sig, time.Now()
		}
		if time.Now().After(deadline) {
			res.StopReason = fmt.Sprintf("not Successful after %s", o.timeout)
			break
		}
		if condTrue(conds, "Failure") && time.Since(lastChange) > o.quiet {
			res.StopReason = fmt.Sprintf("Failure, and no change for %s", o.quiet)
			break
		}
	}
	if res.FirstSuccessful < 0 {
		res.Stopped = lastChange.Sub(created).Seconds()
		if res.Stopped < 0 {
			res.Stopped = 0
		}
	}
	// A successful run settles: the objects are dumped after a moment
	// without change (bounded), so that a run's last writes are in.
	settle(ctx, dyn, disc, o.ns, crs, cr.GetName(), 5*time.Second, 60*time.Second)
	stopSampling()
	res.Memory = mem.result()
	obj, err := crs.Get(ctx, cr.GetName(), metav1.GetOptions{})
	if err != nil {
		return res, err
	}
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok {
			delete(m, "lastTransitionTime")
			res.Conditions = append(res.Conditions, m)
		}
	}
	if st, ok := obj.Object["status"].(map[string]any); ok {
		delete(st, "conditions")
		res.Status = st
	}
	res.Delete.Finalizers = obj.GetFinalizers()
	res.Objects, err = dump(ctx, dyn, disc, o.ns, kube)
	if err != nil {
		return res, err
	}
	for k := range baseline {
		delete(res.Objects, k)
	}
	res.LastTask, res.FailedTask = lastTasks(logPath)

	// Delete the CR; its finalizer, if any, runs.
	delStart := time.Now()
	if err := crs.Delete(ctx, cr.GetName(), metav1.DeleteOptions{}); err != nil {
		return res, err
	}
	res.Delete.Gone = -1
	for time.Since(delStart) < o.deleteWait {
		if _, err := crs.Get(ctx, cr.GetName(), metav1.GetOptions{}); apierrors.IsNotFound(err) {
			res.Delete.Gone = time.Since(delStart).Seconds()
			break
		}
		time.Sleep(500 * time.Millisecond)
	}
	// The garbage collector's pass over the dependents.
	gcWait := time.Now().Add(30 * time.Second)
	for {
		left, err := dump(ctx, dyn, disc, o.ns, kube)
		if err != nil {
			return res, err
		}
		res.Delete.Remaining = res.Delete.Remaining[:0]
		for k := range left {
			if _, ok := baseline[k]; ok || strings.HasPrefix(k, "Pod/") || strings.HasPrefix(k, "ReplicaSet/") {
				continue // terminating with their owners
			}
			res.Delete.Remaining = append(res.Delete.Remaining, k)
		}
		sort.Strings(res.Delete.Remaining)
		if time.Now().After(gcWait) || res.Delete.Gone < 0 {
			break
		}
		time.Sleep(2 * time.Second)
	}
	return res, nil
}

// prepareNode runs the kubelet stand-in as the cluster's one Node, with
// room for the operator's pods, a heartbeat that keeps it Ready, every
// exec answered with exit 0 and no output, and hostPath volumes for the
// claims of StatefulSets.
func prepareNode(ctx context.Context, c *kubetest.Cluster, kube kubernetes.Interface) error {
	// Its Node registration conflicts at times with the controllers'
	// first writes to the new Node: tried again.
	var k *kubelet.Kubelet
	var err error
	for i := 0; i < 10; i++ {
		if k, err = kubelet.ForCluster(c, "realops-node"); err == nil || !apierrors.IsConflict(errors.Unwrap(err)) && !strings.Contains(err.Error(), "the object has been modified") {
			break
		}
		time.Sleep(300 * time.Millisecond)
	}
	if err != nil {
		return err
	}
	k.SetExec(func(e *kubelet.Exec) (int, bool) {
		if e.Stdin != nil {
			_, _ = io.Copy(io.Discard, e.Stdin)
		}
		return 0, true
	})
	beat := func() error {
		n, err := kube.CoreV1().Nodes().Get(ctx, k.NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		room := corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("64"), corev1.ResourceMemory: resource.MustParse("256Gi"),
			corev1.ResourcePods: resource.MustParse("500"), corev1.ResourceEphemeralStorage: resource.MustParse("1Ti")}
		n.Status.Capacity, n.Status.Allocatable = room, room
		for i := range n.Status.Conditions {
			n.Status.Conditions[i].LastHeartbeatTime = metav1.Now()
		}
		_, err = kube.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{})
		return err
	}
	// The stand-in and the node lifecycle controller write the Node too:
	// a conflict is tried again.
	for i := 0; ; i++ {
		err := beat()
		if err == nil {
			break
		}
		if !apierrors.IsConflict(err) || i == 20 {
			return err
		}
		time.Sleep(200 * time.Millisecond)
	}
	go func() {
		for ctx.Err() == nil {
			time.Sleep(10 * time.Second)
			_ = beat()
		}
	}()
	// The node lifecycle controller takes the not-ready taint off a
	// Ready node; wait for that (bounded), else take it off.
	for i := 0; i < 60; i++ {
		n, err := kube.CoreV1().Nodes().Get(ctx, k.NodeName, metav1.GetOptions{})
		if err != nil {
			return err
		}
		if len(n.Spec.Taints) == 0 {
			break
		}
		if i == 59 {
			n.Spec.Taints = nil
			if _, err := kube.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		time.Sleep(time.Second)
	}
	for i := 0; i < 12; i++ {
		pv := &corev1.PersistentVolume{
			ObjectMeta: metav1.ObjectMeta{Name: "realops-pv-" + strconv.Itoa(i)},
			Spec: corev1.PersistentVolumeSpec{
				Capacity:                      corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("100Gi")},
				AccessModes:                   []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce, corev1.ReadWriteMany, corev1.ReadOnlyMany},
				PersistentVolumeReclaimPolicy: corev1.PersistentVolumeReclaimRetain,
				PersistentVolumeSource:        corev1.PersistentVolumeSource{HostPath: &corev1.HostPathVolumeSource{Path: filepath.Join(k.Dir, "pv", strconv.Itoa(i))}},
			},
		}
		if _, err := kube.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	return nil
}

func resourceFor(disc discovery.DiscoveryInterface, gvk schema.GroupVersionKind) (schema.GroupVersionResource, error) {
	for i := 0; i < 30; i++ {
		list, err := disc.ServerResourcesForGroupVersion(gvk.GroupVersion().String())
		if err == nil {
			for _, r := range list.APIResources {
				if r.Kind == gvk.Kind && !strings.Contains(r.Name, "/") {
					return gvk.GroupVersion().WithResource(r.Name), nil
				}
			}
		}
		time.Sleep(time.Second)
	}
	return schema.GroupVersionResource{}, fmt.Errorf("no resource for %s", gvk)
}

func condTrue(conds []any, typ string) bool {
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == typ && m["status"] == "True" {
			return true
		}
	}
	return false
}

// skipped kinds: bookkeeping of the cluster, not the operator's output.
var skipKinds = map[string]bool{"Event": true, "Lease": true, "Endpoints": true, "EndpointSlice": true, "ControllerRevision": true}

// namespaced lists the namespaced, listable resources (preferred versions).
func namespaced(disc discovery.DiscoveryInterface) ([]schema.GroupVersionResource, []string) {
	lists, _ := disc.ServerPreferredNamespacedResources()
	var gvrs []schema.GroupVersionResource
	var kinds []string
	for _, l := range lists {
		gv, err := schema.ParseGroupVersion(l.GroupVersion)
		if err != nil {
			continue
		}
		for _, r := range l.APIResources {
			if strings.Contains(r.Name, "/") || skipKinds[r.Kind] || !hasVerb(r.Verbs, "list") {
				continue
			}
			gvrs = append(gvrs, gv.WithResource(r.Name))
			kinds = append(kinds, r.Kind)
		}
	}
	return gvrs, kinds
}

func hasVerb(verbs []string, v string) bool {
	for _, x := range verbs {
		if x == v {
			return true
		}
	}
	return false
}

// signature summarises the CR's status and the namespace's objects, to
// tell whether anything changes.
func signature(ctx context.Context, dyn dynamic.Interface, disc discovery.DiscoveryInterface, ns string, cr *unstructured.Unstructured) string {
	// The Running condition flips on every retry of a failing run, and
	// its ansibleResult counts; what a retry changes otherwise is there.
	var b strings.Builder
	conds, _, _ := unstructured.NestedSlice(cr.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] != "Running" {
			fmt.Fprintf(&b, "%v=%v:%v|", m["type"], m["status"], m["message"])
		}
	}
	if st, ok := cr.Object["status"].(map[string]any); ok {
		rest := map[string]any{}
		for k, v := range st {
			if k != "conditions" {
				rest[k] = v
			}
		}
		data, _ := json.Marshal(rest) // sorted keys
		b.Write(data)
		b.WriteString(";")
	}
	// Discovery's order varies from call to call: the objects are sorted.
	var objs []string
	gvrs, _ := namespaced(disc)
	for _, gvr := range gvrs {
		l, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, it := range l.Items {
			// The CR's own version moves with every status write of a
			// retry; its status is above, without the Running condition.
			if it.GetKind() == "Pod" || it.GetKind() == "ReplicaSet" || it.GetUID() == cr.GetUID() {
				continue
			}
			objs = append(objs, fmt.Sprintf("%s/%s@%s", it.GetKind(), it.GetName(), it.GetResourceVersion()))
		}
	}
	sort.Strings(objs)
	b.WriteString(strings.Join(objs, ";"))
	return b.String()
}

// sigDiff names the parts of two signatures that differ.
func sigDiff(a, b string) string {
	in := map[string]bool{}
	for _, p := range strings.Split(a, ";") {
		in[p] = true
	}
	var d []string
	for _, p := range strings.Split(b, ";") {
		if !in[p] {
			d = append(d, clip(p))
		}
	}
	return strings.Join(d, " ")
}

func settle(ctx context.Context, dyn dynamic.Interface, disc discovery.DiscoveryInterface, ns string, crs dynamic.ResourceInterface, name string, still, bound time.Duration) {
	end := time.Now().Add(bound)
	last, since := "", time.Now()
	for time.Now().Before(end) {
		obj, err := crs.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return
		}
		sig := signature(ctx, dyn, disc, ns, obj)
		if sig != last {
			last, since = sig, time.Now()
		} else if time.Since(since) >= still {
			return
		}
		time.Sleep(time.Second)
	}
}

var hashSuffix = regexp.MustCompile(`-[a-z0-9]{5}$`)

// dump lists the namespace's objects, normalised: no server-set metadata
// or status, Secret values hidden, generated names and pod-template
// hashes replaced, owners as "Kind/name".
func dump(ctx context.Context, dyn dynamic.Interface, disc discovery.DiscoveryInterface, ns string, kube kubernetes.Interface) (map[string]map[string]any, error) {
	out := map[string]map[string]any{}
	gvrs, _ := namespaced(disc)
	for _, gvr := range gvrs {
		l, err := dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			continue
		}
		for _, it := range l.Items {
			key := it.GetKind() + "/" + normName(&it)
			out[key] = normalise(&it)
		}
	}
	return out, nil
}

func normName(o *unstructured.Unstructured) string {
	name := o.GetName()
	if g := o.GetGenerateName(); g != "" && strings.HasPrefix(name, g) {
		name = g + "*"
	} else if len(o.GetOwnerReferences()) > 0 && o.GetOwnerReferences()[0].Kind == "Job" {
		name = hashSuffix.ReplaceAllString(name, "-*")
	}
	if h := o.GetLabels()["pod-template-hash"]; h != "" {
		name = strings.Replace(name, "-"+h, "-HASH", 1)
	}
	return name
}

func normalise(o *unstructured.Unstructured) map[string]any {
	m := o.DeepCopy().Object
	delete(m, "status")
	md, _ := m["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp", "managedFields", "generation", "selfLink", "namespace", "deletionTimestamp", "deletionGracePeriodSeconds"} {
		delete(md, k)
	}
	md["name"] = normName(o)
	if refs := o.GetOwnerReferences(); len(refs) > 0 {
		var rs []string
		for _, r := range refs {
			s := r.Kind + "/" + r.Name
			if r.Controller != nil && *r.Controller {
				s += " controller"
			}
			if r.BlockOwnerDeletion != nil && *r.BlockOwnerDeletion {
				s += " blockOwnerDeletion"
			}
			if r.Kind == "ReplicaSet" {
				s = hashTail(s)
			}
			rs = append(rs, s)
		}
		md["ownerReferences"] = rs
	}
	if ann, ok := md["annotations"].(map[string]any); ok {
		if v, ok := ann["kubectl.kubernetes.io/last-applied-configuration"].(string); ok {
			// Its content is compared as data, without secrets.
			var la map[string]any
			if json.Unmarshal([]byte(v), &la) == nil {
				if o.GetKind() == "Secret" {
					hideValues(la)
				}
				ann["kubectl.kubernetes.io/last-applied-configuration"] = la
			}
		}
	}
	if o.GetKind() == "Secret" {
		hideValues(m)
	}
	dropAllocated(o.GetKind(), m)
	if o.GetKind() == "Pod" {
		if spec, ok := m["spec"].(map[string]any); ok {
			delete(spec, "nodeName")
		}
	}
	if lbl, ok := md["labels"].(map[string]any); ok {
		if _, ok := lbl["pod-template-hash"]; ok {
			lbl["pod-template-hash"] = "HASH"
		}
	}
	return m
}

// dropAllocated removes what the apiserver and the controllers allocate,
// which differs from run to run.
func dropAllocated(kind string, m map[string]any) {
	if spec, ok := m["spec"].(map[string]any); ok {
		switch kind {
		case "Service":
			delete(spec, "clusterIP")
			delete(spec, "clusterIPs")
			if ports, ok := spec["ports"].([]any); ok && (spec["type"] == "NodePort" || spec["type"] == "LoadBalancer") {
				for _, p := range ports {
					if pm, ok := p.(map[string]any); ok {
						delete(pm, "nodePort")
					}
				}
			}
		case "PersistentVolumeClaim":
			delete(spec, "volumeName")
		}
	}
}

func hashTail(s string) string {
	parts := strings.SplitN(s, " ", 2)
	i := strings.LastIndex(parts[0], "-")
	if i > 0 {
		parts[0] = parts[0][:i] + "-HASH"
	}
	return strings.Join(parts, " ")
}

func hideValues(m map[string]any) {
	for _, k := range []string{"data", "stringData"} {
		if d, ok := m[k].(map[string]any); ok {
			for key, v := range d {
				d[key] = fmt.Sprintf("(%d chars)", len(fmt.Sprint(v)))
			}
		}
	}
}

// lastTasks reads the runtime's JSON log: the last task named, and the
// last failed task.
func lastTasks(path string) (last, failed string) {
	f, err := os.Open(path)
	if err != nil {
		return "", ""
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 16<<20)
	for sc.Scan() {
		line := sc.Text()
		var m map[string]any
		if json.Unmarshal([]byte(line), &m) != nil {
			continue
		}
		// cfzt-runner names the task in EventData.Task; ansible-operator
		// in EventData.Name of a task start and EventData.Task of a
		// failure.
		task, _ := m["EventData.Task"].(string)
		if task == "" {
			task, _ = m["EventData.Name"].(string)
		}
		if task == "" {
			continue
		}
		last = task
		msg := fmt.Sprint(m["msg"], " ", m["error"])
		if strings.Contains(msg, "task failed") && m["level"] == "error" {
			failed = task
		}
	}
	return last, failed
}

// sampler samples the private memory of a process tree.
type sampler struct {
	pid int
	mu  sync.Mutex
	m   Memory
}

func (s *sampler) start() func() {
	done := make(chan struct{})
	stopped := make(chan struct{})
	go func() {
		defer close(stopped)
		for {
			s.sample()
			select {
			case <-done:
				return
			case <-time.After(500 * time.Millisecond):
			}
		}
	}()
	return func() { close(done); <-stopped }
}

func (s *sampler) sample() {
	pids := tree(s.pid)
	var priv, pss float64
	for _, p := range pids {
		data, err := os.ReadFile("/proc/" + strconv.Itoa(p) + "/smaps_rollup")
		if err != nil {
			continue
		}
		for _, l := range strings.Split(string(data), "\n") {
			f := strings.Fields(l)
			if len(f) < 2 {
				continue
			}
			kb, _ := strconv.ParseFloat(f[1], 64)
			switch f[0] {
			case "Private_Clean:", "Private_Dirty:":
				priv += kb
			case "Pss:":
				pss += kb
			}
		}
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.m.Samples++
	if priv/1024 > s.m.PeakPrivateMiB {
		s.m.PeakPrivateMiB = priv / 1024
	}
	if pss/1024 > s.m.PeakPSSMiB {
		s.m.PeakPSSMiB = pss / 1024
	}
	if len(pids) > s.m.PeakProcs {
		s.m.PeakProcs = len(pids)
	}
}

func (s *sampler) result() Memory {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.m
}

// tree is root and its descendants, from /proc/*/stat.
func tree(root int) []int {
	entries, _ := os.ReadDir("/proc")
	children := map[int][]int{}
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		data, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		s := string(data)
		i := strings.LastIndex(s, ")")
		if i < 0 {
			continue
		}
		f := strings.Fields(s[i+1:])
		if len(f) < 2 {
			continue
		}
		ppid, _ := strconv.Atoi(f[1])
		children[ppid] = append(children[ppid], pid)
	}
	out := []int{root}
	for i := 0; i < len(out); i++ {
		out = append(out, children[out[i]]...)
	}
	return out
}
