// Command chute-demo shows chute (docs/chute.md) working on this machine,
// with no cluster and no Cloudflare account (`make demo-chute`): it starts
// a local kube-apiserver and the Cloudflare API simulator, installs
// deploy/chute's CRDs and RBAC, runs `cfzt-runner operator` on
// ansible/chute as the operator's ServiceAccount, applies the sample, and
// shows what was made on both sides; then it changes the allowed emails,
// deletes the instance and shows that nothing is left on Cloudflare. No
// kubelet runs, so the cloudflared pods never start; a connected
// cloudflared is simulated on the tunnel before the deletion.
//
//	chute-demo [-runner bin/cfzt-runner] [-timeout 3m]
package main

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"io"
	"net/http/httptest"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

const (
	account  = "0123456789abcdef0123456789abcdef"
	zone     = "fedcba9876543210fedcba9876543210"
	apiToken = "demo-api-token"
)

var (
	configsGVR   = schema.GroupVersionResource{Group: "chutes.troubleshat.com", Version: "v1alpha1", Resource: "chuteconfigs"}
	instancesGVR = schema.GroupVersionResource{Group: "chutes.troubleshat.com", Version: "v1alpha1", Resource: "chuteinstances"}
)

func main() {
	runner := flag.String("runner", "bin/cfzt-runner", "the cfzt-runner binary")
	timeout := flag.Duration("timeout", 3*time.Minute, "longest wait for each step")
	flag.Parse()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, *runner, *timeout, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "chute-demo:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, runner string, timeout time.Duration, out io.Writer) error {
	root, err := kubetest.RepoRoot()
	if err != nil {
		return err
	}
	if !filepath.IsAbs(runner) {
		runner = filepath.Join(root, runner)
	}
	say := func(format string, args ...any) { fmt.Fprintf(out, "\n== "+format+"\n", args...) }

	say("starting a kube-apiserver and the Cloudflare simulator")
	cluster, err := kubetest.Start(kubetest.Options{OperatorNamespace: "chute-system", OperatorServiceAccount: "chute-operator"})
	if err != nil {
		return err
	}
	defer cluster.Stop()
	sim, err := cfsim.New(cfsim.WithSeed(cfsim.Seed{
		Accounts: []cfsim.SeedAccount{{ID: account, Name: "demo", Tokens: []string{apiToken}}},
		Zones:    []cfsim.SeedZone{{ID: zone, Name: "example.com", Account: account}},
	}))
	if err != nil {
		return err
	}
	ts := httptest.NewServer(sim)
	defer ts.Close()
	fmt.Fprintf(out, "apiserver %s, simulator %s\n", cluster.Host, ts.URL)

	say("installing deploy/chute: CRDs, namespace, ServiceAccount and least-privilege RBAC")
	deploy := filepath.Join(root, "deploy", "chute")
	for _, f := range []string{"crds/chuteconfig.yaml", "crds/chuteinstance.yaml", "namespace.yaml",
		"rbac/serviceaccount.yaml", "rbac/clusterrole.yaml", "rbac/clusterrolebinding.yaml", "rbac/role.yaml"} {
		data, err := os.ReadFile(filepath.Join(deploy, f))
		if err != nil {
			return err
		}
		if err := cluster.ApplyYAML(ctx, string(data)); err != nil {
			return fmt.Errorf("%s: %w", f, err)
		}
		fmt.Fprintln(out, "applied", "deploy/chute/"+f)
	}
	for _, crd := range []string{"chuteconfigs.chutes.troubleshat.com", "chuteinstances.chutes.troubleshat.com"} {
		if err := cluster.WaitForCRD(ctx, crd); err != nil {
			return err
		}
	}

	say("running `cfzt-runner operator` on ansible/chute as system:serviceaccount:chute-system:chute-operator")
	opCtx, stopOp := context.WithCancel(ctx)
	defer stopOp()
	cmd := exec.CommandContext(opCtx, runner, "operator", "--watches-file=./watches.yaml",
		"--metrics-bind-address=0", "--health-probe-bind-address=0", "--ansible-log-events=Tasks")
	cmd.Dir = filepath.Join(root, "ansible", "chute")
	cmd.Env = append(os.Environ(), "KUBECONFIG="+cluster.OperatorKubeconfig, "WATCH_NAMESPACE=",
		"CHUTE_CLOUDFLARE_API_BASE="+ts.URL+cfsim.APIPrefix, "ANSIBLE_GATHERING=explicit")
	cmd.Cancel = func() error { return cmd.Process.Signal(syscall.SIGTERM) }
	logs, err := cmd.StdoutPipe()
	if err != nil {
		return err
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("%s: %w (run make build first)", runner, err)
	}
	logDone := make(chan struct{})
	go func() { showLog(logs, out); close(logDone) }()
	defer func() { stopOp(); _ = cmd.Wait(); <-logDone }()

	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	if err != nil {
		return err
	}
	sample, err := os.ReadFile(filepath.Join(deploy, "samples", "chute.yaml"))
	if err != nil {
		return err
	}
	say("applying the API token's Secret, namespace monitoring and deploy/chute/samples/chute.yaml")
	for _, y := range []string{
		"apiVersion: v1\nkind: Secret\nmetadata:\n  name: cloudflare-api-token\n  namespace: chute-system\nstringData:\n  token: " + apiToken + "\n",
		"apiVersion: v1\nkind: Namespace\nmetadata:\n  name: monitoring\n",
		string(sample),
	} {
		if err := cluster.ApplyYAML(ctx, y); err != nil {
			return err
		}
	}
	instances := dyn.Resource(instancesGVR).Namespace("monitoring")
	inst, err := waitReady(ctx, timeout, func() (*unstructured.Unstructured, error) {
		return instances.Get(ctx, "grafana", metav1.GetOptions{})
	})
	if err != nil {
		return err
	}
	cfg, err := dyn.Resource(configsGVR).Get(ctx, "default", metav1.GetOptions{})
	if err != nil {
		return err
	}
	say("converged")
	showStatus(out, "ChuteConfig default", cfg)
	showStatus(out, "ChuteInstance monitoring/grafana", inst)
	dep, err := dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace("monitoring").Get(ctx, "chute-grafana-cloudflared", metav1.GetOptions{})
	if err != nil {
		return err
	}
	replicas, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	fmt.Fprintf(out, "Deployment monitoring/chute-grafana-cloudflared: %d replicas, owner %s (no kubelet here: its pods never start)\n", replicas, owners(dep))
	sec, err := dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace("monitoring").Get(ctx, "chute-grafana-tunnel-token", metav1.GetOptions{})
	if err != nil {
		return err
	}
	fmt.Fprintf(out, "Secret monitoring/chute-grafana-tunnel-token: key token (value not shown), owner %s\n", owners(sec))
	showCloudflare(out, sim)

	say("allowing carol@example.com too")
	if _, err := instances.Patch(ctx, "grafana", types.MergePatchType,
		[]byte(`{"spec":{"allowedEmails":["alice@example.com","bob@example.com","carol@example.com"]}}`), metav1.PatchOptions{}); err != nil {
		return err
	}
	if err := waitFor(ctx, timeout, func() bool { return strings.Contains(policyRules(sim), "carol@example.com") }); err != nil {
		return fmt.Errorf("the policy never allowed carol: %w", err)
	}
	fmt.Fprintln(out, "policy chute-operator-allow now includes:", policyRules(sim))

	say("deleting the instance (a cloudflared is connected to its tunnel)")
	tunnelID, _, _ := unstructured.NestedString(inst.Object, "status", "tunnelId")
	if _, err := sim.ConnectTunnel(tunnelID); err != nil {
		return err
	}
	sim.ResetLog()
	if err := instances.Delete(ctx, "grafana", metav1.DeleteOptions{}); err != nil {
		return err
	}
	if err := waitFor(ctx, timeout, func() bool {
		_, err := instances.Get(ctx, "grafana", metav1.GetOptions{})
		return err != nil
	}); err != nil {
		return fmt.Errorf("the instance was never released: %w", err)
	}
	fmt.Fprintln(out, "the finalizer's Cloudflare calls, in order:")
	for _, r := range sim.Requests() {
		if r.Method == "DELETE" {
			fmt.Fprintf(out, "  DELETE %s -> %d\n", strings.TrimPrefix(r.Path, cfsim.APIPrefix), r.Status)
		}
	}
	showCloudflare(out, sim)
	say("done")
	return nil
}

// showLog prints the operator's task lines, shortened.
func showLog(r io.Reader, out io.Writer) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var line map[string]any
		if json.Unmarshal(sc.Bytes(), &line) != nil {
			fmt.Fprintln(out, "  operator |", sc.Text())
			continue
		}
		task, _ := line["EventData.Task"].(string)
		if task == "" {
			if msg, _ := line["msg"].(string); msg != "" && line["level"] == "error" {
				fmt.Fprintf(out, "  operator | error: %s %v\n", msg, line["error"])
			}
			continue
		}
		who := fmt.Sprint(line["name"])
		if ns, _ := line["namespace"].(string); ns != "" {
			who = ns + "/" + who
		}
		status := strings.TrimPrefix(fmt.Sprint(line["event_type"]), "runner_on_")
		if status == "skipped" {
			continue
		}
		msg := ""
		if m, ok := line["EventData.Message"].(string); ok && m != "" {
			msg = ": " + m
		}
		fmt.Fprintf(out, "  operator | %-22s %-8s %s%s\n", who, status, task, msg)
	}
}

func waitFor(ctx context.Context, timeout time.Duration, cond func() bool) error {
	deadline := time.Now().Add(timeout)
	for !cond() {
		if time.Now().After(deadline) {
			return errors.New("timed out")
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(300 * time.Millisecond):
		}
	}
	return nil
}

func waitReady(ctx context.Context, timeout time.Duration, get func() (*unstructured.Unstructured, error)) (*unstructured.Unstructured, error) {
	var obj *unstructured.Unstructured
	err := waitFor(ctx, timeout, func() bool {
		o, err := get()
		if err != nil {
			return false
		}
		obj = o
		c := readyCondition(o)
		return c != nil && c["status"] == "True"
	})
	if err != nil {
		return nil, fmt.Errorf("never Ready: %w", err)
	}
	return obj, nil
}

func readyCondition(o *unstructured.Unstructured) map[string]any {
	conds, _, _ := unstructured.NestedSlice(o.Object, "status", "conditions")
	for _, c := range conds {
		if m, ok := c.(map[string]any); ok && m["type"] == "Ready" {
			return m
		}
	}
	return nil
}

func showStatus(out io.Writer, what string, o *unstructured.Unstructured) {
	st, _, _ := unstructured.NestedMap(o.Object, "status")
	fmt.Fprintf(out, "%s:\n", what)
	for _, k := range []string{"ready", "otpIdentityProviderId", "hostname", "tunnelId", "dnsRecordId", "accessAppId", "accessPolicyId"} {
		if v, ok := st[k]; ok {
			fmt.Fprintf(out, "  %-22s %v\n", k, v)
		}
	}
	if c := readyCondition(o); c != nil {
		fmt.Fprintf(out, "  %-22s %v (%v): %v\n", "Ready", c["status"], c["reason"], c["message"])
	}
}

func owners(o *unstructured.Unstructured) string {
	var s []string
	for _, r := range o.GetOwnerReferences() {
		s = append(s, r.Kind+"/"+r.Name)
	}
	return strings.Join(s, ", ")
}

func policyRules(sim *cfsim.Server) string {
	var parts []string
	for _, p := range sim.State().AccessPolicies {
		b, _ := json.Marshal(p.Policy.Include)
		parts = append(parts, string(b))
	}
	return strings.Join(parts, " ")
}

// showCloudflare prints what exists on the simulated account.
func showCloudflare(out io.Writer, sim *cfsim.Server) {
	st := sim.State()
	fmt.Fprintln(out, "on Cloudflare (simulated):")
	n := 0
	for _, t := range st.Tunnels {
		if t.Tunnel.DeletedAt != nil {
			continue
		}
		n++
		ingress, _ := json.Marshal(t.Configuration.Config)
		fmt.Fprintf(out, "  tunnel      %s %s (config_src %s, %s) ingress %s\n", t.Tunnel.Name, t.Tunnel.ID, t.Tunnel.ConfigSrc, t.Tunnel.Status, ingress)
	}
	for _, r := range st.DNSRecords {
		n++
		fmt.Fprintf(out, "  dns record  %s %s -> %s (proxied %t)\n", r.Object.Type, r.Object.Name, r.Object.Content, r.Object.Proxied)
	}
	for _, a := range st.AccessApplications {
		n++
		fmt.Fprintf(out, "  access app  %s %s (%s, allowed_idps %v, auto_redirect_to_identity %t)\n", a.Object.Name, a.Object.Domain, a.Object.Type, a.Object.AllowedIdPs, a.Object.AutoRedirectToIdentity)
	}
	for _, p := range st.AccessPolicies {
		n++
		b, _ := json.Marshal(p.Policy.Include)
		fmt.Fprintf(out, "  policy      %s %s include %s\n", p.Policy.Name, p.Policy.Decision, b)
	}
	for _, p := range st.IdentityProviders {
		fmt.Fprintf(out, "  idp         %s (%s) %s\n", p.Object.Name, p.Object.Type, p.Object.ID)
	}
	if n == 0 {
		fmt.Fprintln(out, "  no tunnel, DNS record, Access application or policy")
	}
}
