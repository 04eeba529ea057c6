package main

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
)

// chute is the seed's second operator (ansible/chute, deploy/chute,
// docs/chute.md), run here by `cfzt-runner operator` in process against a
// real kube-apiserver and the Cloudflare simulator. No kubelet runs, so
// the cloudflared Deployment's pods never start: its spec is checked, and
// a running cloudflared's connections are made on the simulator
// (ConnectTunnel) before the deletion.
const (
	chuteDir      = "../../ansible/chute"
	chuteDeploy   = "../../deploy/chute"
	chuteAccount  = "0a1b2c3d4e5f60718293a4b5c6d7e8f9"
	chuteZone     = "5a6b7c8d9e0f1a2b3c4d5e6f7a8b9c0d"
	chuteAPIToken = "chute-api-token-0123456789abcdefSECRET"
)

var (
	chuteConfigs   = schema.GroupVersionResource{Group: "chutes.troubleshat.com", Version: "v1alpha1", Resource: "chuteconfigs"}
	chuteInstances = schema.GroupVersionResource{Group: "chutes.troubleshat.com", Version: "v1alpha1", Resource: "chuteinstances"}
)

// chuteEnv is one apiserver, one simulator and the operator's handle.
type chuteEnv struct {
	t       *testing.T
	ctx     context.Context
	cluster *kubetest.Cluster
	dyn     dynamic.Interface
	sim     *cfsim.Server
	simURL  string
	dir     string
	logs    []*syncBuffer // one per operator start
	stop    func()
	// runtime is "cfzt-runner" (in process) or "ansible-operator".
	runtime string
	// wait bounds each wait: ansible-operator's runs take seconds each.
	wait time.Duration
}

func startChuteEnv(t *testing.T, runtime string) *chuteEnv {
	dir, err := filepath.Abs(chuteDir)
	require.NoError(t, err)
	cluster, err := kubetest.Start(kubetest.Options{OperatorNamespace: "chute-system", OperatorServiceAccount: "chute-operator"})
	require.NoError(t, err)
	t.Cleanup(cluster.Stop)
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	t.Cleanup(cancel)
	// The CRDs, the namespace and the RBAC as shipped: the operator runs
	// with the ServiceAccount's rights only.
	for _, f := range []string{"crds/chuteconfig.yaml", "crds/chuteinstance.yaml", "namespace.yaml",
		"rbac/serviceaccount.yaml", "rbac/clusterrole.yaml", "rbac/clusterrolebinding.yaml", "rbac/role.yaml"} {
		data, err := os.ReadFile(filepath.Join(chuteDeploy, f))
		require.NoError(t, err)
		require.NoError(t, cluster.ApplyYAML(ctx, string(data)), f)
	}
	if runtime == "ansible-operator" {
		data, err := os.ReadFile(filepath.Join(chuteDeploy, "rbac-ansible-operator", "secrets.yaml"))
		require.NoError(t, err)
		require.NoError(t, cluster.ApplyYAML(ctx, string(data)))
	}
	require.NoError(t, cluster.WaitForCRD(ctx, "chuteinstances.chutes.troubleshat.com"))
	require.NoError(t, cluster.WaitForCRD(ctx, "chuteconfigs.chutes.troubleshat.com"))
	for _, ns := range []string{"web", "other"} {
		require.NoError(t, cluster.ApplyYAML(ctx, "apiVersion: v1\nkind: Namespace\nmetadata:\n  name: "+ns+"\n"))
	}
	sim, err := cfsim.New(cfsim.WithSeed(cfsim.Seed{
		Accounts: []cfsim.SeedAccount{{ID: chuteAccount, Name: "chute", Tokens: []string{chuteAPIToken}}},
		Zones:    []cfsim.SeedZone{{ID: chuteZone, Name: "example.com", Account: chuteAccount}},
		// Someone else's record, on a name an instance will ask for.
		DNSRecords: []cfsim.SeedDNSRecord{{Zone: chuteZone, Type: "CNAME", Name: "taken", Content: "elsewhere.example.net", Proxied: true}},
	}), cfsim.WithRateLimit(0, time.Minute))
	require.NoError(t, err)
	ts := httptest.NewServer(sim)
	t.Cleanup(ts.Close)
	t.Setenv("CHUTE_CLOUDFLARE_API_BASE", ts.URL+cfsim.APIPrefix)
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	e := &chuteEnv{t: t, ctx: ctx, cluster: cluster, dyn: dyn, sim: sim, simURL: ts.URL, dir: dir, runtime: runtime, wait: 3 * time.Minute}
	if runtime == "ansible-operator" {
		e.wait = 10 * time.Minute
	}
	t.Cleanup(func() {
		if e.stop != nil {
			e.stop()
		}
		if t.Failed() {
			for i, l := range e.logs {
				t.Logf("operator run %d:\n%s", i+1, l.String())
			}
		}
	})
	return e
}

// start runs the operator at the highest verbosity, logging every event.
func (e *chuteEnv) start() {
	t := e.t
	t.Setenv("KUBECONFIG", e.cluster.OperatorKubeconfig)
	t.Setenv("WATCH_NAMESPACE", "")
	t.Setenv("ANSIBLE_GATHERING", "explicit")
	logs := &syncBuffer{}
	e.logs = append(e.logs, logs)
	flags := []string{"--watches-file=./watches.yaml", "--ansible-verbosity=4", "--ansible-log-events=Everything"}
	if e.runtime == "ansible-operator" {
		bin := os.Getenv("CFZT_ANSIBLE_OPERATOR")
		shims, err := filepath.Abs("../../bench/ansible-shims")
		require.NoError(t, err)
		cmd := exec.Command(filepath.Join(bin, "ansible-operator"), append([]string{"run",
			"--metrics-bind-address=" + freeAddr(t), "--health-probe-bind-address=" + freeAddr(t)}, flags...)...)
		cmd.Dir = e.dir
		cmd.Env = append(os.Environ(), "PATH="+bin+":"+os.Getenv("PATH"), "ANSIBLE_ROLES_PATH="+filepath.Join(e.dir, "roles"),
			"ANSIBLE_COLLECTIONS_PATH="+shims, "HOME="+t.TempDir())
		// Its own process group: the kill takes ansible-runner and
		// ansible-playbook with it.
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
		cmd.Stdout, cmd.Stderr = logs, logs
		require.NoError(t, cmd.Start())
		e.stop = func() {
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			_ = cmd.Wait()
			e.stop = nil
		}
		return
	}
	t.Chdir(e.dir)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan int, 1)
	go func() {
		done <- runSDKOperator(ctx, append(flags, "--metrics-bind-address=0", "--health-probe-bind-address=0"), logs, logs)
	}()
	e.stop = func() { cancel(); <-done; e.stop = nil }
}

func (e *chuteEnv) allLogs() string {
	var b strings.Builder
	for _, l := range e.logs {
		b.WriteString(l.String())
	}
	return b.String()
}

func (e *chuteEnv) apply(yaml string) {
	e.t.Helper()
	require.NoError(e.t, e.cluster.ApplyYAML(e.ctx, yaml))
}

func (e *chuteEnv) instance(ns, name string) *unstructured.Unstructured {
	obj, err := e.dyn.Resource(chuteInstances).Namespace(ns).Get(e.ctx, name, metav1.GetOptions{})
	if err != nil {
		return nil
	}
	return obj
}

// waitReady waits until the instance is Ready and its run has ended
// (Successful), which ansible-operator writes a moment after the role's
// last task.
func (e *chuteEnv) waitReady(get func() *unstructured.Unstructured) *unstructured.Unstructured {
	e.t.Helper()
	return e.waitReason(func() *unstructured.Unstructured {
		o := get()
		if o == nil || condition(o, "Successful") == nil || condition(o, "Successful")["status"] != "True" {
			return nil
		}
		return o
	}, "Ready")
}

// waitReason waits until the object's Ready condition has reason.
func (e *chuteEnv) waitReason(get func() *unstructured.Unstructured, reason string) *unstructured.Unstructured {
	e.t.Helper()
	var obj *unstructured.Unstructured
	waitFor(e.t, e.wait, "Ready reason "+reason, func() bool {
		obj = get()
		if obj == nil {
			return false
		}
		c := condition(obj, "Ready")
		return c != nil && c["reason"] == reason
	})
	return obj
}

func statusString(obj *unstructured.Unstructured, field string) string {
	s, _, _ := unstructured.NestedString(obj.Object, "status", field)
	return s
}

// cf calls the simulator's API with the account's token.
func (e *chuteEnv) cf(method, path string) map[string]any {
	e.t.Helper()
	req, err := http.NewRequest(method, e.simURL+cfsim.APIPrefix+path, nil)
	require.NoError(e.t, err)
	req.Header.Set("Authorization", "Bearer "+chuteAPIToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	require.NoError(e.t, err)
	var env map[string]any
	require.NoError(e.t, json.Unmarshal(body, &env), string(body))
	return env
}

func liveTunnels(st cfsim.StateDump, name string) []cfsim.TunnelState {
	var out []cfsim.TunnelState
	for _, tu := range st.Tunnels {
		if tu.Tunnel.Name == name && tu.Tunnel.DeletedAt == nil {
			out = append(out, tu)
		}
	}
	return out
}

func appsNamed(st cfsim.StateDump, name string) []cfsim.AccessApplication {
	var out []cfsim.AccessApplication
	for _, a := range st.AccessApplications {
		if a.Object.Name == name {
			out = append(out, a.Object)
		}
	}
	return out
}

func recordsNamed(st cfsim.StateDump, name string) []cfsim.DNSRecord {
	var out []cfsim.DNSRecord
	for _, r := range st.DNSRecords {
		if r.Object.Name == name {
			out = append(out, r.Object)
		}
	}
	return out
}

func (e *chuteEnv) countRequests(method, pathPrefix string) int {
	n := 0
	for _, r := range e.sim.Requests() {
		if r.Method == method && strings.HasPrefix(r.Path, cfsim.APIPrefix+pathPrefix) && r.Fault == "" {
			n++
		}
	}
	return n
}

const chuteSecretYAML = `apiVersion: v1
kind: Secret
metadata:
  name: cloudflare-api-token
  namespace: chute-system
stringData:
  token: ` + chuteAPIToken + "\n"

const chuteConfigYAML = `apiVersion: chutes.troubleshat.com/v1alpha1
kind: ChuteConfig
metadata:
  name: default
spec:
  apiTokenSecretRef: {name: cloudflare-api-token, namespace: chute-system}
  accountId: ` + chuteAccount + `
  zoneId: ` + chuteZone + `
  baseDomain: example.com
`

func chuteInstanceYAML(ns, name, config, host string, emails ...string) string {
	hostLine := "  subdomain: " + host
	if strings.Contains(host, ".") {
		hostLine = "  hostname: " + host
	}
	return fmt.Sprintf(`apiVersion: chutes.troubleshat.com/v1alpha1
kind: ChuteInstance
metadata:
  name: %s
  namespace: %s
spec:
  configRef: %s
  service: {name: grafana, port: 3000}
%s
  allowedEmails: [%s]
  allowedEmailDomains: [example.org]
`, name, ns, config, hostLine, strings.Join(emails, ", "))
}

// TestChuteOperator walks chute through the evidence list on one
// apiserver and one simulator: a missing config, a missing credential,
// creation interrupted by a kill and resumed without duplicates, the
// Secret and the cloudflared Deployment, status IDs that were tampered
// with, an update of the emails, a hostname conflict, and deletion in
// reverse order until nothing is left on the simulator; all at the
// highest verbosity, whose output must never hold the tunnel token or the
// API token.
//
// It runs on cfzt-runner and, when CFZT_ANSIBLE_OPERATOR names the bin
// directory of hack/install-ansible-operator.sh, on ansible-operator
// v1.42.0 with the reference Ansible (ports 8888 and 5050: see
// docs/ansible-operator.md for running it in its own network namespace).
func TestChuteOperator(t *testing.T) {
	if os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("CFZT_KUBE_APISERVER is not set (see internal/kubetest)")
	}
	for _, rt := range sdkRuntimes() {
		t.Run(rt.name, func(t *testing.T) {
			if rt.skip != "" {
				t.Skip(rt.skip)
			}
			runChute(t, startChuteEnv(t, rt.name))
		})
	}
}

func runChute(t *testing.T, e *chuteEnv) {
	e.start()
	instances := e.dyn.Resource(chuteInstances)
	configs := e.dyn.Resource(chuteConfigs)

	// The apiserver refuses what the schema can refuse.
	bad := strings.Replace(chuteInstanceYAML("web", "bad", "default", "grafana", "a@example.com"), "  subdomain: grafana\n", "  subdomain: grafana\n  hostname: grafana.example.com\n", 1)
	require.ErrorContains(t, e.cluster.ApplyYAML(e.ctx, bad), "set exactly one of hostname and subdomain")
	require.ErrorContains(t, e.cluster.ApplyYAML(e.ctx, strings.Replace(chuteConfigYAML, "accountId: "+chuteAccount, "accountId: nothex", 1)), "accountId")

	// A ChuteInstance whose ChuteConfig is missing waits, saying so.
	e.apply(chuteInstanceYAML("web", "grafana", "default", "grafana", "alice@example.com"))
	obj := e.waitReason(func() *unstructured.Unstructured { return e.instance("web", "grafana") }, "ConfigNotFound")
	require.Equal(t, "False", condition(obj, "Ready")["status"])
	require.Contains(t, condition(obj, "Ready")["message"], "ChuteConfig default not found")
	require.Equal(t, []string{"chutes.troubleshat.com/cleanup"}, obj.GetFinalizers())

	// The config without its Secret: CredentialNotFound, and the instance
	// waits for a Ready config.
	e.apply(chuteConfigYAML)
	getConfig := func() *unstructured.Unstructured {
		o, err := configs.Get(e.ctx, "default", metav1.GetOptions{})
		if err != nil {
			return nil
		}
		return o
	}
	cfg := e.waitReason(getConfig, "CredentialNotFound")
	require.Contains(t, condition(cfg, "Ready")["message"], "Secret chute-system/cloudflare-api-token not found")
	ready, _, _ := unstructured.NestedBool(cfg.Object, "status", "ready")
	require.False(t, ready)
	e.waitReason(func() *unstructured.Unstructured { return e.instance("web", "grafana") }, "ConfigNotReady")
	require.Zero(t, e.sim.CountWrites(), "nothing was made on Cloudflare")

	// With the Secret, the config creates the one-time PIN provider. The
	// instance's creation is held at the Access application (a create
	// that hangs), and the operator is killed there.
	require.NoError(t, e.sim.InjectFault(cfsim.Fault{LatencyMS: 600000, Count: 1, Method: "POST", PathPrefix: "/accounts/" + chuteAccount + "/access/apps"}))
	e.apply(chuteSecretYAML)
	cfg = e.waitReason(getConfig, "Ready")
	otp := statusString(cfg, "otpIdentityProviderId")
	st := e.sim.State()
	require.Len(t, st.IdentityProviders, 1)
	require.Equal(t, otp, st.IdentityProviders[0].Object.ID)
	require.Equal(t, "onetimepin", st.IdentityProviders[0].Object.Type)

	waitFor(t, e.wait, "the DNS record's ID in status", func() bool {
		o := e.instance("web", "grafana")
		return o != nil && statusString(o, "dnsRecordId") != ""
	})
	waitFor(t, time.Minute, "the Access application's create to be in flight", func() bool {
		return len(e.sim.Faults()) == 0
	})
	e.stop() // the kill, mid-sequence
	st = e.sim.State()
	require.Len(t, liveTunnels(st, "chute-web-grafana"), 1)
	require.Len(t, recordsNamed(st, "grafana.example.com"), 1)
	require.Empty(t, appsNamed(st, "chute-web-grafana"), "the application's create never completed")

	// Restarted, it resumes: one tunnel, one record, one application.
	e.start()
	obj = e.waitReady(func() *unstructured.Unstructured { return e.instance("web", "grafana") })
	require.Equal(t, "True", condition(obj, "Ready")["status"])
	require.Equal(t, "True", condition(obj, "Successful")["status"])
	st = e.sim.State()
	tunnels := liveTunnels(st, "chute-web-grafana")
	require.Len(t, tunnels, 1)
	tun := tunnels[0]
	records := recordsNamed(st, "grafana.example.com")
	require.Len(t, records, 1)
	apps := appsNamed(st, "chute-web-grafana")
	require.Len(t, apps, 1)
	require.Equal(t, 1, e.countRequests("POST", "/accounts/"+chuteAccount+"/cfd_tunnel"), "one tunnel create in both runs")
	require.Equal(t, 1, e.countRequests("POST", "/zones/"+chuteZone+"/dns_records"), "one record create in both runs")

	// Status holds the IDs; each object is as the seed says.
	require.Equal(t, "grafana.example.com", statusString(obj, "hostname"))
	require.Equal(t, tun.Tunnel.ID, statusString(obj, "tunnelId"))
	require.Equal(t, records[0].ID, statusString(obj, "dnsRecordId"))
	require.Equal(t, apps[0].ID, statusString(obj, "accessAppId"))
	require.Equal(t, "cloudflare", tun.Tunnel.ConfigSrc)
	ingress, _ := json.Marshal(tun.Configuration.Config)
	require.JSONEq(t, `{"ingress":[{"hostname":"grafana.example.com","service":"http://grafana.web.svc.cluster.local:3000"},{"service":"http_status:404"}]}`, stripNulls(t, ingress))
	require.Equal(t, "CNAME", records[0].Type)
	require.Equal(t, tun.Tunnel.ID+".cfargotunnel.com", records[0].Content)
	require.True(t, records[0].Proxied)
	require.Equal(t, "self_hosted", apps[0].Type)
	require.Equal(t, "grafana.example.com", apps[0].Domain)
	require.Equal(t, []string{otp}, apps[0].AllowedIdPs)
	require.True(t, apps[0].AutoRedirectToIdentity)
	policy := e.appPolicy(apps[0].ID)
	require.Equal(t, statusString(obj, "accessPolicyId"), policy.Policy.ID)
	require.Equal(t, "chute-operator-allow", policy.Policy.Name)
	require.Equal(t, "allow", policy.Policy.Decision)
	rules, _ := json.Marshal(policy.Policy.Include)
	require.JSONEq(t, `[{"email":{"email":"alice@example.com"}},{"email_domain":{"domain":"example.org"}}]`, string(rules))

	// The token Secret holds Cloudflare's token; Secret and Deployment are
	// owned by the instance.
	token := e.cf("GET", "/accounts/"+chuteAccount+"/cfd_tunnel/"+tun.Tunnel.ID+"/token")["result"].(string)
	require.NotEmpty(t, token)
	secret, err := e.dyn.Resource(schema.GroupVersionResource{Version: "v1", Resource: "secrets"}).Namespace("web").Get(e.ctx, "chute-grafana-tunnel-token", metav1.GetOptions{})
	require.NoError(t, err)
	stored, _, _ := unstructured.NestedString(secret.Object, "data", "token")
	raw, err := base64.StdEncoding.DecodeString(stored)
	require.NoError(t, err)
	require.Equal(t, token, string(raw))
	requireOwnedBy(t, secret, obj)
	dep, err := e.dyn.Resource(schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}).Namespace("web").Get(e.ctx, "chute-grafana-cloudflared", metav1.GetOptions{})
	require.NoError(t, err)
	requireOwnedBy(t, dep, obj)
	checkCloudflaredSpec(t, dep)
	all, err := instances.List(e.ctx, metav1.ListOptions{})
	require.NoError(t, err)
	dump, _ := json.Marshal(all)
	require.NotContains(t, string(dump), token, "the token is in no status or condition")

	// Status is only a hint: IDs pointing at another tunnel (not ours by
	// name) or at a path are not trusted, and never reach a URL.
	victim := e.createTunnel("someone-elses-tunnel")
	_, err = instances.Namespace("web").Patch(e.ctx, "grafana", types.MergePatchType,
		[]byte(`{"status":{"tunnelId":"`+victim+`","dnsRecordId":"../../../accounts/`+chuteAccount+`/cfd_tunnel","accessAppId":"x?y=1"}}`),
		metav1.PatchOptions{}, "status")
	require.NoError(t, err)

	// An update of the emails (which also reconciles the tampered status).
	e.sim.ResetLog()
	_, err = instances.Namespace("web").Patch(e.ctx, "grafana", types.MergePatchType,
		[]byte(`{"spec":{"allowedEmails":["alice@example.com","carol@example.com"]}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	waitFor(t, e.wait, "the policy to allow carol", func() bool {
		rules, _ := json.Marshal(e.appPolicy(apps[0].ID).Policy.Include)
		return strings.Contains(string(rules), "carol@example.com")
	})
	e.waitReady(func() *unstructured.Unstructured {
		o := e.instance("web", "grafana")
		if o == nil || statusString(o, "tunnelId") != tun.Tunnel.ID || statusString(o, "dnsRecordId") != records[0].ID || statusString(o, "accessAppId") != apps[0].ID {
			return nil
		}
		return o
	})
	for _, r := range e.sim.Requests() {
		if r.Method != "GET" {
			require.NotContains(t, r.Path, victim, "the other tunnel is only read, to check its name")
		}
		require.NotContains(t, r.Path, "..", "an ID that is not one never reaches a URL")
		require.NotContains(t, r.Query, "y=1")
	}
	require.Zero(t, e.countRequests("GET", "/accounts/"+chuteAccount+"/cfd_tunnel/"+victim+"/token"))
	st = e.sim.State()
	require.Len(t, liveTunnels(st, "chute-web-grafana"), 1)
	require.Len(t, appsNamed(st, "chute-web-grafana"), 1)
	require.Len(t, recordsNamed(st, "grafana.example.com"), 1)
	rules, _ = json.Marshal(e.appPolicy(apps[0].ID).Policy.Include)
	require.JSONEq(t, `[{"email":{"email":"alice@example.com"}},{"email":{"email":"carol@example.com"}},{"email_domain":{"domain":"example.org"}}]`, string(rules))

	// The same hostname in another namespace: HostnameConflict, and
	// nothing of the first changes.
	writes := e.sim.CountWrites()
	e.apply(chuteInstanceYAML("other", "grafana2", "default", "grafana.example.com", "mallory@example.net"))
	obj2 := e.waitReason(func() *unstructured.Unstructured { return e.instance("other", "grafana2") }, "HostnameConflict")
	require.Contains(t, condition(obj2, "Ready")["message"], "hostname grafana.example.com is already used by ChuteInstance web/grafana")
	require.Equal(t, writes, e.sim.CountWrites(), "nothing was written to Cloudflare")
	require.Empty(t, liveTunnels(e.sim.State(), "chute-other-grafana2"))
	require.Equal(t, "Ready", condition(e.instance("web", "grafana"), "Ready")["reason"])

	// A hostname whose record someone else made: never adopted or
	// changed, the instance says why, and its deletion leaves the record.
	e.apply(chuteInstanceYAML("web", "taken", "default", "taken", "alice@example.com"))
	taken := e.waitReason(func() *unstructured.Unstructured { return e.instance("web", "taken") }, "CloudflareAPIError")
	require.Contains(t, condition(taken, "Ready")["message"], "POST /zones/"+chuteZone+"/dns_records failed (HTTP 400)")
	foreign := recordsNamed(e.sim.State(), "taken.example.com")
	require.Len(t, foreign, 1)
	require.Equal(t, "elsewhere.example.net", foreign[0].Content)
	require.Empty(t, statusString(taken, "dnsRecordId"))
	require.NoError(t, instances.Namespace("web").Delete(e.ctx, "taken", metav1.DeleteOptions{}))
	waitFor(t, e.wait, "web/taken to be gone", func() bool { return e.instance("web", "taken") == nil })
	st = e.sim.State()
	require.Equal(t, foreign, recordsNamed(st, "taken.example.com"), "the other owner's record is untouched")
	require.Empty(t, liveTunnels(st, "chute-web-taken"), "the instance's own tunnel is deleted")

	// A new hostname: the old record goes, the new one comes, the
	// application and the ingress follow. The conflicting instance may
	// now take the old hostname.
	_, err = instances.Namespace("web").Patch(e.ctx, "grafana", types.MergePatchType,
		[]byte(`{"spec":{"subdomain":"dash"}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	obj = e.waitReady(func() *unstructured.Unstructured {
		o := e.instance("web", "grafana")
		if o == nil || statusString(o, "hostname") != "dash.example.com" {
			return nil
		}
		return o
	})
	st = e.sim.State()
	for _, r := range recordsNamed(st, "grafana.example.com") {
		require.NotEqual(t, "managed by chute: web/grafana", ptrString(r.Comment), "the old hostname's record is gone")
	}
	records = recordsNamed(st, "dash.example.com")
	require.Len(t, records, 1)
	require.Equal(t, records[0].ID, statusString(obj, "dnsRecordId"))
	require.Equal(t, tun.Tunnel.ID+".cfargotunnel.com", records[0].Content)
	require.Equal(t, "dash.example.com", appsNamed(st, "chute-web-grafana")[0].Domain)
	tun = liveTunnels(st, "chute-web-grafana")[0]
	ingress, _ = json.Marshal(tun.Configuration.Config)
	require.Contains(t, string(ingress), `"hostname":"dash.example.com"`)

	// Deletion: a running cloudflared's connections are cleaned up, then
	// the policy, application, record and tunnel go, in that order.
	_, err = e.sim.ConnectTunnel(tun.Tunnel.ID)
	require.NoError(t, err)
	e.sim.ResetLog()
	require.NoError(t, instances.Namespace("web").Delete(e.ctx, "grafana", metav1.DeleteOptions{}))
	waitFor(t, e.wait, "web/grafana to be gone", func() bool { return e.instance("web", "grafana") == nil })
	var deletes []string
	for _, r := range e.sim.Requests() {
		if r.Method == "DELETE" && r.Status == 200 {
			deletes = append(deletes, strings.TrimPrefix(r.Path, cfsim.APIPrefix))
		}
	}
	acct := "/accounts/" + chuteAccount
	require.Equal(t, []string{
		acct + "/access/apps/" + apps[0].ID + "/policies/" + policy.Policy.ID,
		acct + "/access/apps/" + apps[0].ID,
		"/zones/" + chuteZone + "/dns_records/" + records[0].ID,
		acct + "/cfd_tunnel/" + tun.Tunnel.ID + "/connections",
		acct + "/cfd_tunnel/" + tun.Tunnel.ID,
	}, deletes)

	// The conflicting instance has got the hostname; then it and the
	// config are deleted and nothing is left on the simulator but the
	// one-time PIN provider.
	e.waitReady(func() *unstructured.Unstructured { return e.instance("other", "grafana2") })
	require.NoError(t, instances.Namespace("other").Delete(e.ctx, "grafana2", metav1.DeleteOptions{}))
	waitFor(t, e.wait, "other/grafana2 to be gone", func() bool { return e.instance("other", "grafana2") == nil })
	st = e.sim.State()
	for _, tu := range st.Tunnels {
		if tu.Tunnel.ID == victim {
			require.Nil(t, tu.Tunnel.DeletedAt, "the other owner's tunnel is left alone")
			continue
		}
		require.NotNil(t, tu.Tunnel.DeletedAt, "tunnel %s left", tu.Tunnel.Name)
	}
	var left []string
	for _, r := range st.DNSRecords {
		if r.Object.Name != "taken.example.com" {
			left = append(left, r.Object.Name)
		}
	}
	require.Empty(t, left, "DNS records left")
	require.Empty(t, st.AccessApplications)
	require.Empty(t, st.AccessPolicies)

	// Never the token, at any verbosity: not in the logs of either run,
	// not in any status.
	e.stop()
	out := e.allLogs()
	require.Contains(t, out, "Ensure the tunnel", "the runs were logged")
	require.NotContains(t, out, token)
	require.NotContains(t, out, chuteAPIToken)
	require.NotContains(t, out, base64.StdEncoding.EncodeToString([]byte(token)))
	list, err := configs.List(e.ctx, metav1.ListOptions{})
	require.NoError(t, err)
	dump, _ = json.Marshal(list)
	require.NotContains(t, string(dump), chuteAPIToken)
}

func (e *chuteEnv) createTunnel(name string) string {
	e.t.Helper()
	body := strings.NewReader(`{"name":"` + name + `","config_src":"cloudflare"}`)
	req, err := http.NewRequest("POST", e.simURL+cfsim.APIPrefix+"/accounts/"+chuteAccount+"/cfd_tunnel", body)
	require.NoError(e.t, err)
	req.Header.Set("Authorization", "Bearer "+chuteAPIToken)
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	var env struct {
		Result struct {
			ID string `json:"id"`
		} `json:"result"`
	}
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&env))
	require.NotEmpty(e.t, env.Result.ID)
	return env.Result.ID
}

func (e *chuteEnv) appPolicy(appID string) cfsim.PolicyState {
	e.t.Helper()
	var found []cfsim.PolicyState
	for _, p := range e.sim.State().AccessPolicies {
		if p.AppID == appID {
			found = append(found, p)
		}
	}
	require.Len(e.t, found, 1)
	return found[0]
}

func stripNulls(t *testing.T, raw []byte) string {
	t.Helper()
	var v map[string]any
	require.NoError(t, json.Unmarshal(raw, &v))
	for k, x := range v {
		if x == nil {
			delete(v, k)
		}
	}
	out, _ := json.Marshal(v)
	return string(out)
}

func requireOwnedBy(t *testing.T, obj, owner *unstructured.Unstructured) {
	t.Helper()
	refs := obj.GetOwnerReferences()
	require.Len(t, refs, 1, obj.GetName())
	require.Equal(t, "ChuteInstance", refs[0].Kind)
	require.Equal(t, owner.GetName(), refs[0].Name)
	require.Equal(t, owner.GetUID(), refs[0].UID)
}

// checkCloudflaredSpec checks what the seed asks of the cloudflared
// Deployment. No kubelet runs here, so its pods never start.
func checkCloudflaredSpec(t *testing.T, dep *unstructured.Unstructured) {
	t.Helper()
	replicas, _, _ := unstructured.NestedInt64(dep.Object, "spec", "replicas")
	require.EqualValues(t, 2, replicas)
	pod, _, _ := unstructured.NestedMap(dep.Object, "spec", "template", "spec")
	podSec := pod["securityContext"].(map[string]any)
	require.Equal(t, true, podSec["runAsNonRoot"])
	containers := pod["containers"].([]any)
	require.Len(t, containers, 1)
	c := containers[0].(map[string]any)
	require.Contains(t, c["image"], "cloudflared")
	require.Equal(t, []any{"tunnel", "--no-autoupdate", "--metrics", "0.0.0.0:2000", "run"}, c["args"])
	env := c["env"].([]any)[0].(map[string]any)
	require.Equal(t, "TUNNEL_TOKEN", env["name"])
	ref := env["valueFrom"].(map[string]any)["secretKeyRef"].(map[string]any)
	require.Equal(t, "chute-grafana-tunnel-token", ref["name"])
	require.Equal(t, "token", ref["key"])
	sec := c["securityContext"].(map[string]any)
	require.Equal(t, true, sec["readOnlyRootFilesystem"])
	require.Equal(t, false, sec["allowPrivilegeEscalation"])
	require.Equal(t, []any{"ALL"}, sec["capabilities"].(map[string]any)["drop"])
	for _, probe := range []string{"livenessProbe", "readinessProbe"} {
		get := c[probe].(map[string]any)["httpGet"].(map[string]any)
		require.Equal(t, "/ready", get["path"], probe)
		require.EqualValues(t, 2000, get["port"], probe)
	}
}

func ptrString(p *string) string {
	if p == nil {
		return ""
	}
	return *p
}
