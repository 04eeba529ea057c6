package main

import (
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"gopkg.in/yaml.v3"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// A Secret's values, also those in its last-applied annotation, never
// reach the result or the report: only their lengths do.
func TestSecretValuesHidden(t *testing.T) {
	const secret = "hunter2-very-secret"
	la := `{"apiVersion":"v1","kind":"Secret","metadata":{"name":"s"},"stringData":{"password":"` + secret + `"}}`
	o := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"name": "s", "annotations": map[string]any{"kubectl.kubernetes.io/last-applied-configuration": la}},
		"data":     map[string]any{"password": "aHVudGVyMi12ZXJ5LXNlY3JldA=="},
	}}
	n := normalise(o)
	a := &Result{Operator: "x", Runtime: "a", Objects: map[string]map[string]any{"Secret/s": n}}
	b := &Result{Operator: "x", Runtime: "b", Objects: map[string]map[string]any{"Secret/s": normalise(o)}}
	data, err := json.Marshal(a)
	require.NoError(t, err)
	for _, out := range []string{string(data), report(a, b)} {
		assert.NotContains(t, out, secret)
		assert.NotContains(t, out, "aHVudGVyMi12ZXJ5LXNlY3JldA==")
	}
	assert.Contains(t, string(data), "(28 chars)")
}

// The RBAC is rendered as kustomize renders config/default: the name
// prefix on every object, on the roleRef and on ServiceAccount subjects,
// and the namespace on namespaced objects and subjects.
func TestRBACAsKustomize(t *testing.T) {
	src := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(src, "config", "rbac"), 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(src, "config", "rbac", name), []byte(text), 0o644))
	}
	write("service_account.yaml", "apiVersion: v1\nkind: ServiceAccount\nmetadata:\n  name: controller-manager\n  namespace: system\n")
	write("role.yaml", "---\napiVersion: rbac.authorization.k8s.io/v1\nkind: Role\nmetadata:\n  name: manager-role\nrules: []\n")
	write("role_binding.yaml", "apiVersion: rbac.authorization.k8s.io/v1\nkind: RoleBinding\nmetadata:\n  name: manager-rolebinding\nroleRef:\n  apiGroup: rbac.authorization.k8s.io\n  kind: Role\n  name: manager-role\nsubjects:\n- kind: ServiceAccount\n  name: controller-manager\n  namespace: system\n")
	out, err := rbacYAML(src, "ops", "op-")
	require.NoError(t, err)
	var docs []map[string]any
	dec := yaml.NewDecoder(strings.NewReader(out))
	for {
		var d map[string]any
		if dec.Decode(&d) != nil {
			break
		}
		docs = append(docs, d)
	}
	require.Len(t, docs, 3)
	for _, d := range docs {
		md := d["metadata"].(map[string]any)
		assert.True(t, strings.HasPrefix(md["name"].(string), "op-"), md["name"])
		assert.Equal(t, "ops", md["namespace"])
	}
	rb := docs[2]
	assert.Equal(t, "op-manager-role", rb["roleRef"].(map[string]any)["name"])
	sub := rb["subjects"].([]any)[0].(map[string]any)
	assert.Equal(t, "op-controller-manager", sub["name"])
	assert.Equal(t, "ops", sub["namespace"])
}

// Generated names and pod-template hashes are replaced, so that the
// objects of two runs line up.
func TestNormalisedNames(t *testing.T) {
	pod := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Pod", "metadata": map[string]any{
		"name": "web-7d9f8c6b5-x2x9q", "generateName": "web-7d9f8c6b5-",
		"labels": map[string]any{"pod-template-hash": "7d9f8c6b5"},
	}}}
	assert.Equal(t, "web-HASH-*", normName(pod))
	rs := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "ReplicaSet", "metadata": map[string]any{
		"name": "web-7d9f8c6b5", "labels": map[string]any{"pod-template-hash": "7d9f8c6b5"},
	}}}
	assert.Equal(t, "web-HASH", normName(rs))
}

// Both runtimes' log shapes give the last task and the last failed one.
func TestLastTasks(t *testing.T) {
	p := filepath.Join(t.TempDir(), "log")
	lines := []string{
		`{"level":"info","msg":"[playbook task start]","EventData.Name":"Create it"}`,
		`{"level":"error","msg":"","EventData.Task":"Create it","error":"[playbook task failed]"}`,
		`not json`,
		`{"level":"info","msg":"[playbook task start]","EventData.Name":"Rescue it"}`,
		`{"level":"info","msg":"[playbook task failed]","EventData.Task":"r : ignored"}`,
	}
	require.NoError(t, os.WriteFile(p, []byte(strings.Join(lines, "\n")+"\n"), 0o644))
	last, failed := lastTasks(p)
	assert.Equal(t, "r : ignored", last)
	assert.Equal(t, "Create it", failed)
}

// TestEDAOperatorRuns runs the harness on eda-server-operator under
// cfzt-runner when REALOPS_EDA_SRC names a checkout of it (1.0.2): the
// README's CR becomes Successful with the objects of the measured run
// (docs/ansible-operator.md, "Real operators"). It skips otherwise.
func TestEDAOperatorRuns(t *testing.T) {
	src := os.Getenv("REALOPS_EDA_SRC")
	if src == "" || os.Getenv("CFZT_KUBE_APISERVER") == "" {
		t.Skip("REALOPS_EDA_SRC (an eda-server-operator checkout) and CFZT_KUBE_APISERVER are needed")
	}
	dir := t.TempDir()
	bin := filepath.Join(dir, "cfzt-runner")
	build := exec.Command("go", "build", "-o", bin, "../../cmd/cfzt-runner")
	out, err := build.CombinedOutput()
	require.NoError(t, err, string(out))
	cr := filepath.Join(dir, "eda.yaml")
	require.NoError(t, os.WriteFile(cr, []byte("apiVersion: eda.ansible.com/v1alpha1\nkind: EDA\nmetadata:\n  name: my-eda\nspec:\n  automation_server_url: https://awx-host\n"), 0o644))
	res, err := run(runOpts{src: src, runtime: "cfzt", cr: cr, out: filepath.Join(dir, "eda-cfzt.json"), cfzt: bin,
		timeout: 3 * time.Minute, quiet: 60 * time.Second, deleteWait: time.Minute,
		env:  multi{"ANSIBLE_DEBUG_LOGS=false", "ANSIBLE_ALLOW_BROKEN_CONDITIONALS=true"},
		args: multi{"--reconcile-period=0s", "--metrics-bind-address=0", "--health-probe-bind-address=0"}})
	require.NoError(t, err)
	require.Equal(t, "Successful", res.StopReason)
	for _, k := range []string{"Deployment/my-eda-api", "Deployment/my-eda-ui", "StatefulSet/my-eda-postgres-13", "Secret/my-eda-admin-password", "Service/my-eda-redis-svc"} {
		require.Contains(t, res.Objects, k)
	}
	require.Len(t, res.Objects, 36)
	require.Equal(t, []string{"PersistentVolumeClaim/postgres-13-my-eda-postgres-13-0"}, res.Delete.Remaining)
}
