package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestNormalizeDropsWhatAFreshClusterAssigns(t *testing.T) {
	pod := resource{gvr: schema.GroupVersionResource{Version: "v1", Resource: "pods"}, kind: "Pod", namespaced: true}
	obj := map[string]any{
		"apiVersion": "v1", "kind": "Pod",
		"metadata": map[string]any{
			"name": "web-7c9f4-x8k2p", "generateName": "web-7c9f4-", "namespace": "ns",
			"uid": "u", "resourceVersion": "12", "creationTimestamp": "2026-11-28T17:00:00Z",
			"managedFields": []any{map[string]any{"manager": "m"}}, "generation": 1.0,
			"ownerReferences": []any{map[string]any{"kind": "ReplicaSet", "name": "web-7c9f4", "uid": "o"}},
			"labels":          map[string]any{"app": "web"},
		},
		"spec": map[string]any{"nodeName": "fake-node-1",
			"containers": []any{map[string]any{"name": "c", "volumeMounts": []any{map[string]any{"name": "kube-api-access-dg8fs"}}}},
			"volumes":    []any{map[string]any{"name": "kube-api-access-dg8fs"}}},
		"status": map[string]any{"podIP": "10.244.0.3"},
	}
	n := normalize(pod, obj)
	b, err := json.Marshal(n)
	require.NoError(t, err)
	require.JSONEq(t, `{"apiVersion":"v1","kind":"Pod",
		"metadata":{"name":"web-7c9f4-<GENERATED>","generateName":"web-7c9f4-","namespace":"ns",
			"ownerReferences":[{"kind":"ReplicaSet","name":"web-7c9f4"}],"labels":{"app":"web"}},
		"spec":{"containers":[{"name":"c","volumeMounts":[{"name":"kube-api-access-<GENERATED>"}]}],
			"volumes":[{"name":"kube-api-access-<GENERATED>"}]}}`, string(b))
	// The input is not changed.
	require.Equal(t, "u", obj["metadata"].(map[string]any)["uid"])

	// A custom resource keeps its status and generation: the playbook
	// writes them.
	cr := resource{gvr: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, kind: "Widget"}
	n = normalize(cr, map[string]any{"metadata": map[string]any{"name": "w", "generation": 2.0}, "status": map[string]any{"at": "2026-01-02T03:04:05.123456Z"}})
	require.Equal(t, map[string]any{"metadata": map[string]any{"name": "w", "generation": 2.0}, "status": map[string]any{"at": "<TIME>"}}, n)
}

func TestDiffObjectsNamesTheFirstDifference(t *testing.T) {
	a := []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"},"data":{"k":"1"}}`}
	require.Equal(t, "", diffObjects(a, a))
	b := []string{`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"n"},"data":{"k":"2"}}`}
	require.Equal(t, `v1 ConfigMap n/a: .data.k oracle "1", cfzt-runner "2"`, diffObjects(a, b))
	require.Equal(t, "only the oracle left v1 ConfigMap n/a", diffObjects(a, nil))
	require.Equal(t, "only cfzt-runner left v1 ConfigMap n/a", diffObjects(nil, a))
}

func TestSkipReasons(t *testing.T) {
	dir := t.TempDir()
	mk := func(name, aliases, meta, runme string) *target {
		d := filepath.Join(dir, name)
		require.NoError(t, os.MkdirAll(filepath.Join(d, "meta"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(d, "aliases"), []byte(aliases), 0o644))
		require.NoError(t, os.WriteFile(filepath.Join(d, "meta", "main.yml"), []byte(meta), 0o644))
		if runme != "" {
			require.NoError(t, os.WriteFile(filepath.Join(d, "runme.sh"), []byte(runme), 0o644))
		}
		return nil
	}
	plain := "#!/usr/bin/env bash\nset -eux\nexport ANSIBLE_CALLBACKS_ENABLED=profile_tasks\nexport ANSIBLE_ROLES_PATH=../\nansible-playbook playbook.yaml \"$@\"\n"
	mk("k8s_x", "k8s\n", "dependencies:\n  - setup_namespace\n", plain)
	mk("setup_namespace", "disabled\n", "", "")
	mk("helm_x", "helm\n", "", plain)
	mk("uses_helm", "k8s\n", "dependencies:\n  - install_helm\n", plain)
	mk("odd", "k8s\n", "", plain+"kubectl apply -f x\n")
	all, err := listTargets(dir)
	require.NoError(t, err)
	got := map[string]string{}
	for _, tg := range all {
		got[tg.Name] = tg.skipReason()
	}
	require.Equal(t, map[string]string{
		"k8s_x":           "",
		"setup_namespace": "aliases: disabled (a helper role of other targets)",
		"helm_x":          "helm: needs the helm binary (out of scope)",
		"uses_helm":       "helm: needs the helm binary (out of scope)",
		"odd":             "runme.sh does more than run playbook.yaml: kubectl apply -f x",
	}, got)
}

func TestFirstFailureSkipsIgnoredErrors(t *testing.T) {
	log := "PLAY [localhost] ***\nTASK [r : one] ***\n[ERROR]: Task failed: a\nfatal: [localhost]: FAILED! => {\"msg\": \"a\"}\n...ignoring\n\nTASK [r : two] ***\nfatal: [localhost]: FAILED! => {\"msg\": \"b\"}\n"
	require.Equal(t, `TASK [r : two] fatal: [localhost]: FAILED! => {"msg": "b"}`, firstFailure(log))
	require.Equal(t, `[ERROR]: couldn't resolve module/action 'x'`, firstFailure("[ERROR]: couldn't resolve module/action 'x'\n"))
}

func TestWrittenKeepsThePlaybooksLastWrites(t *testing.T) {
	log := filepath.Join(t.TempDir(), "audit.log")
	lines := []string{
		// A component's write (same admin user, its own agent): left out.
		`{"stage":"ResponseComplete","verb":"create","userAgent":"kube-controller-manager/v1.36.3","requestURI":"/api/v1/namespaces/ns/configmaps","objectRef":{"resource":"configmaps","namespace":"ns","name":"kube-root-ca.crt"},"responseStatus":{"code":201},"responseObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"kube-root-ca.crt","namespace":"ns"}}}`,
		`{"stage":"ResponseComplete","verb":"create","userAgent":"OpenAPI-Generator/22.6.0/python","requestURI":"/api/v1/namespaces/ns/configmaps","objectRef":{"resource":"configmaps","namespace":"ns","name":"a"},"responseStatus":{"code":201},"responseObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"1"},"data":{"k":"1"}}}`,
		// A dry run and a failure change nothing.
		`{"stage":"ResponseComplete","verb":"patch","userAgent":"OpenAPI-Generator/22.6.0/python","requestURI":"/api/v1/namespaces/ns/configmaps/a?dryRun=All","objectRef":{"resource":"configmaps","namespace":"ns","name":"a"},"responseStatus":{"code":200},"responseObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"},"data":{"k":"dry"}}}`,
		`{"stage":"ResponseComplete","verb":"patch","userAgent":"OpenAPI-Generator/22.6.0/python","requestURI":"/api/v1/namespaces/ns/configmaps/a","objectRef":{"resource":"configmaps","namespace":"ns","name":"a"},"responseStatus":{"code":422},"responseObject":{"kind":"Status"}}`,
		`{"stage":"ResponseComplete","verb":"patch","userAgent":"OpenAPI-Generator/22.6.0/python","requestURI":"/api/v1/namespaces/ns/configmaps/a","objectRef":{"resource":"configmaps","namespace":"ns","name":"a"},"responseStatus":{"code":200},"responseObject":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","namespace":"ns","uid":"1"},"data":{"k":"2"}}}`,
		`{"stage":"ResponseComplete","verb":"delete","userAgent":"OpenAPI-Generator/22.6.0/python","requestURI":"/api/v1/namespaces/ns/configmaps/a","objectRef":{"resource":"configmaps","namespace":"ns","name":"a"},"responseStatus":{"code":200}}`,
		`not json`,
	}
	var b []byte
	for _, l := range lines {
		b = append(b, l+"\n"...)
	}
	require.NoError(t, os.WriteFile(log, b, 0o600))
	objs, writes, err := written(log)
	require.NoError(t, err)
	require.Equal(t, []string{`{"apiVersion":"v1","data":{"k":"2"},"kind":"ConfigMap","metadata":{"name":"a","namespace":"ns"}}`}, objs)
	require.Equal(t, []string{"create /configmaps ns/a", "patch /configmaps ns/a", "delete /configmaps ns/a"}, writes)
}

func TestDiffObjectsInGeneratedNamespaces(t *testing.T) {
	a := []string{
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"generateName":"test-","name":"test-<GENERATED>"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"test-ab12c"}}`,
	}
	b := []string{
		`{"apiVersion":"v1","kind":"Namespace","metadata":{"generateName":"test-","name":"test-<GENERATED>"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"test-zz9xy"}}`,
	}
	require.Equal(t, "", diffObjects(a, b))
	b[1] = `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c","namespace":"test-longer"}}`
	require.Equal(t, "only the oracle left v1 ConfigMap test-<GENERATED>/c", diffObjects(a, b))
}
