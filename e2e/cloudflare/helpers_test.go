package cloudflare

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/util/wait"

	"github.com/cfzt/cfzt-runner/internal/cfsim"
	"github.com/cfzt/cfzt-runner/internal/e2e"
)

const (
	playbook = "ansible/playbooks/cloudflare_worker.yml"
	// tenantNS holds the tenant's API token Secret.
	tenantNS     = "apps"
	credSecret   = "cloudflare-api-token"
	claimKey     = "cfzt.cloudflare.com/claimed-by"
	quickRetries = `{"cf_api_retry_delays": [0, 0, 0]}`
)

// env is one test's world: a fresh simulator, the tenant's token Secret and
// an operator namespace without tasks.
type env struct {
	t   *testing.T
	ctx context.Context
	sim *e2e.Sim
}

func newEnv(t *testing.T, opts ...cfsim.Option) *env {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	t.Cleanup(cancel)
	e := &env{t: t, ctx: ctx, sim: e2e.StartSim(t, opts...)}
	require.NoError(t, h.CreateCredentialSecret(ctx, tenantNS, credSecret, e.sim.Token))
	e.deleteAll()
	t.Cleanup(e.deleteAll)
	return e
}

// deleteAll removes every CloudflareTask and service-token Secret from the
// operator namespace, so tests do not see each other's tasks.
func (e *env) deleteAll() {
	ctx := context.Background()
	tasks := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace)
	require.NoError(e.t, tasks.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}))
	secrets := h.Kube().CoreV1().Secrets(h.Namespace)
	require.NoError(e.t, secrets.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=service-token"}))
}

// spec is a reconcile task for host on the simulator's account and tunnel,
// with the given operations.
func (e *env) spec(host string, ops map[string]any) map[string]any {
	return map[string]any{
		"action":              "reconcile",
		"hostname":            host,
		"accountId":           e.sim.AccountID,
		"tunnelId":            e.sim.TunnelID,
		"credentialSecretRef": map[string]any{"name": credSecret, "namespace": tenantNS, "key": "token"},
		"httprouteRef":        map[string]any{"name": "web", "namespace": tenantNS, "uid": "0d6c1a5e-0000-4000-8000-000000000001"},
		"tenantRef":           map[string]any{"name": "acme", "namespace": tenantNS},
		"operations":          ops,
	}
}

func (e *env) createTask(name string, spec map[string]any) {
	e.t.Helper()
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cfzt.cloudflare.com/v1alpha1",
		"kind":       "CloudflareTask",
		"metadata": map[string]any{
			"name": name, "namespace": h.Namespace,
			"labels": map[string]any{"app.kubernetes.io/managed-by": "cfzt-operator", "app.kubernetes.io/component": "cloudflare-task"},
		},
		"spec": spec,
	}}
	_, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Create(e.ctx, obj, metav1.CreateOptions{})
	require.NoError(e.t, err)
}

func (e *env) task(name string) *unstructured.Unstructured {
	e.t.Helper()
	obj, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Get(e.ctx, name, metav1.GetOptions{})
	require.NoError(e.t, err)
	return obj
}

func (e *env) status(name string) map[string]any {
	st, _, _ := unstructured.NestedMap(e.task(name).Object, "status")
	return st
}

func (e *env) result(name string) map[string]any {
	r, _, _ := unstructured.NestedMap(e.task(name).Object, "status", "result")
	return r
}

// requireCompleted asserts that the task completed and returns its result.
func (e *env) requireCompleted(name, out string) map[string]any {
	e.t.Helper()
	st := e.status(name)
	require.Equal(e.t, "Completed", st["phase"], "status %v\n%s", st, tail(out))
	require.Equal(e.t, e2e.DefaultPodName, st["workerPod"])
	require.NotEmpty(e.t, st["startedAt"])
	require.NotEmpty(e.t, st["completedAt"])
	return e.result(name)
}

// unstructuredSet changes one field of a task's spec (as kube_worker does
// when a route changes).
func unstructuredSet(e *env, name string, value any, fields ...string) error {
	obj := e.task(name)
	if err := unstructured.SetNestedField(obj.Object, value, fields...); err != nil {
		return err
	}
	_, err := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace).Update(e.ctx, obj, metav1.UpdateOptions{})
	return err
}

// requeue puts a task back to Pending, as kube_worker does: drop the claim,
// then reset the phase through the status subresource.
func (e *env) requeue(name string) {
	e.t.Helper()
	tasks := h.Dynamic().Resource(e2e.CloudflareTaskGVR).Namespace(h.Namespace)
	patch := fmt.Sprintf(`{"metadata":{"annotations":{%q:null}}}`, claimKey)
	_, err := tasks.Patch(e.ctx, name, "application/merge-patch+json", []byte(patch), metav1.PatchOptions{})
	require.NoError(e.t, err)
	_, err = tasks.Patch(e.ctx, name, "application/merge-patch+json", []byte(`{"status":{"phase":"Pending"}}`), metav1.PatchOptions{}, "status")
	require.NoError(e.t, err)
}

// run runs one worker cycle with short retry delays and returns its output;
// the cycle itself must succeed (task failures are reported in status).
func (e *env) run(args ...string) string {
	e.t.Helper()
	out, code := h.RunPlaybook(e.ctx, playbook, e.sim.Env(), append([]string{"-e", quickRetries}, args...)...)
	require.Equal(e.t, 0, code, "cfzt-runner failed:\n%s", tail(out))
	return out
}

// api calls the simulator's API with the account's token (test setup).
func (e *env) api(method, path string, body any) map[string]any {
	e.t.Helper()
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		require.NoError(e.t, err)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(e.ctx, method, e.sim.Base+path, rd)
	require.NoError(e.t, err)
	req.Header.Set("Authorization", "Bearer "+e.sim.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	require.NoError(e.t, err)
	defer resp.Body.Close()
	var env map[string]any
	require.NoError(e.t, json.NewDecoder(resp.Body).Decode(&env))
	require.Equal(e.t, true, env["success"], "%s %s: %v", method, path, env)
	res, _ := env["result"].(map[string]any)
	return res
}

// ingress returns the seeded tunnel's ingress rules.
func (e *env) ingress() []map[string]any {
	for _, tun := range e.sim.State().Tunnels {
		if tun.Tunnel.ID == e.sim.TunnelID {
			raw, _ := tun.Configuration.Config["ingress"].([]any)
			var out []map[string]any
			for _, r := range raw {
				out = append(out, r.(map[string]any))
			}
			return out
		}
	}
	return nil
}

// rule returns the ingress rule for host, or nil.
func (e *env) rule(host string) map[string]any {
	for _, r := range e.ingress() {
		if r["hostname"] == host {
			return r
		}
	}
	return nil
}

// requireCatchAllLast asserts the tunnel's last rule is the 404 catch-all
// and that it is the only rule without a hostname.
func (e *env) requireCatchAllLast() {
	e.t.Helper()
	rules := e.ingress()
	require.NotEmpty(e.t, rules)
	last := rules[len(rules)-1]
	require.Equal(e.t, map[string]any{"service": "http_status:404"}, last)
	for _, r := range rules[:len(rules)-1] {
		require.NotEmpty(e.t, r["hostname"], "rule without hostname before the catch-all: %v", rules)
	}
}

func (e *env) dnsRecords(host string) []cfsim.DNSRecord {
	var out []cfsim.DNSRecord
	for _, r := range e.sim.State().DNSRecords {
		if r.Object.Name == host {
			out = append(out, r.Object)
		}
	}
	return out
}

func (e *env) app(host string) *cfsim.AccessApplication {
	for _, a := range e.sim.State().AccessApplications {
		if a.Object.Domain == host {
			app := a.Object
			return &app
		}
	}
	return nil
}

// writes lists the write requests logged since the last ResetLog, as
// "METHOD path" strings.
func (e *env) writes() []string {
	var out []string
	for _, r := range e.sim.Requests() {
		if r.IsWrite() {
			out = append(out, r.Method+" "+strings.TrimPrefix(r.Path, cfsim.APIPrefix))
		}
	}
	return out
}

// waitFor polls cond for up to 30 s.
func (e *env) waitFor(cond func() bool) {
	e.t.Helper()
	require.NoError(e.t, wait.PollUntilContextTimeout(e.ctx, 50*time.Millisecond, 30*time.Second, true,
		func(context.Context) (bool, error) { return cond(), nil }))
}

func notFound(err error) bool { return apierrors.IsNotFound(err) }

// tail keeps failure messages readable.
func tail(out string) string {
	const max = 6000
	if len(out) > max {
		return "...\n" + out[len(out)-max:]
	}
	return out
}
