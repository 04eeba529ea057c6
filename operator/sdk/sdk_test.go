package sdk

import (
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

func TestToSnake(t *testing.T) {
	for in, want := range map[string]string{
		"var": "var", "888": "888", "k8s_var": "k8s_var", "_k8s_var": "_k8s_var", "k8s var": "k8s_var",
		"ThisShouldHaveUnderscores": "_this_should_have_underscores", "sizeK8sBuckets": "size_k8s_buckets",
		"_CanYou_Handle_mixedVars": "_can_you_handle_mixed_vars", "this_should_be_a_noop": "this_should_be_a_noop",
		"egressIPs": "egress_ips", "egressIPsEgress": "egress_ips_egress", "egressIPsegress": "egress_ips_egress",
		"IPsegress": "_ips_egress", "egressIP": "egress_ip", "replicaCount": "replica_count", "size": "size",
		"serviceURL": "service_url", "HTTPPort": "http_port",
	} {
		require.Equal(t, want, ToSnake(in), in)
	}
}

func writeFile(t *testing.T, dir, name, data string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
	require.NoError(t, os.WriteFile(p, []byte(data), 0o644))
	return p
}

func TestLoadWatches(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "playbooks/app.yml", "- hosts: localhost\n")
	writeFile(t, dir, "roles/fin/tasks/main.yml", "[]\n")
	other := t.TempDir()
	writeFile(t, other, "byenv/tasks/main.yml", "[]\n")
	writeFile(t, other, "ansible_collections/ns/coll/roles/dummy/tasks/main.yml", "[]\n")
	env := map[string]string{"GROUP": "example.com", "ANSIBLE_ROLES_PATH": other, "ANSIBLE_COLLECTIONS_PATH": other,
		"MAX_CONCURRENT_RECONCILES_APP_EXAMPLE_COM": "7", "ANSIBLE_VERBOSITY_APP_EXAMPLE_COM": "9"}
	path := writeFile(t, dir, "watches.yaml", `
- version: v1
  group: ${GROUP}
  kind: App
  playbook: playbooks/app.yml
  vars: {meta: '{{ ansible_operator_meta }}'}
  reconcilePeriod: 30s
  manageStatus: no
  snakeCaseParameters: false
  watchAnnotationsChanges: true
  markUnsafe: true
  maxRunnerArtifacts: 3
  selector: {matchLabels: {tier: web}, matchExpressions: [{key: env, operator: In, values: [prod]}]}
  blacklist: [{group: "", version: v1, kind: ConfigMap}]
  finalizer: {name: example.com/fin, role: fin, vars: {cleanup: true}}
  unknownKey: 1
- version: v1
  group: ""
  kind: Secret
  role: byenv
- version: v1
  group: example.com
  kind: Coll
  role: ns.coll.dummy
  watchDependentResources: false
  watchClusterScopedResources: true
`)
	ws, warnings, err := Load(path, LoadOptions{MaxConcurrentReconciles: 2, AnsibleVerbosity: 2, Dir: dir,
		Getenv: func(k string) (string, bool) { v, ok := env[k]; return v, ok }})
	require.NoError(t, err)
	require.Len(t, ws, 3)
	require.Len(t, warnings, 1)
	require.Contains(t, warnings[0], `watches.yaml:16: unknown key "unknownKey"`)
	app := ws[0]
	require.Equal(t, schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "App"}, app.GVK)
	require.Equal(t, filepath.Join(dir, "playbooks/app.yml"), app.Playbook)
	require.Equal(t, 30*time.Second, app.ReconcilePeriod)
	require.False(t, app.ManageStatus)
	require.False(t, app.SnakeCaseParameters)
	require.True(t, app.WatchAnnotationsChanges && app.MarkUnsafe && app.WatchDependentResources)
	require.Equal(t, 3, app.MaxRunnerArtifacts)
	require.Equal(t, 7, app.MaxConcurrentReconciles)
	require.Equal(t, 2, app.AnsibleVerbosity, "out of range: the default")
	require.Equal(t, map[string]string{"tier": "web"}, app.Selector.MatchLabels)
	require.Equal(t, []string{"prod"}, app.Selector.MatchExpressions[0].Values)
	require.Equal(t, []schema.GroupVersionKind{{Version: "v1", Kind: "ConfigMap"}}, app.Blacklist)
	require.Equal(t, filepath.Join(dir, "roles/fin"), app.Finalizer.Role)
	require.Equal(t, filepath.Join(other, "byenv"), ws[1].Role, "found through ANSIBLE_ROLES_PATH")
	require.True(t, ws[1].ManageStatus && ws[1].SnakeCaseParameters, "defaults")
	require.Equal(t, 20, ws[1].MaxRunnerArtifacts)
	require.Equal(t, 2, ws[1].MaxConcurrentReconciles)
	require.Equal(t, filepath.Join(other, "ansible_collections/ns/coll/roles/dummy"), ws[2].Role, "FQCN role")
	require.False(t, ws[2].WatchDependentResources)
	require.True(t, ws[2].WatchClusterScopedResources)
}

func TestLoadWatchesErrors(t *testing.T) {
	dir := t.TempDir()
	writeFile(t, dir, "pb.yml", "- hosts: localhost\n")
	for name, tc := range map[string]struct{ src, want string }{
		"no version":      {"- group: a\n  kind: K\n  playbook: pb.yml\n", "watches.yaml:1: invalid GVK: a/, Kind=K: version must not be empty"},
		"no kind":         {"- version: v1\n  playbook: pb.yml\n", "watches.yaml:1: invalid GVK: /v1, Kind=: kind must not be empty"},
		"missing":         {"- version: v1\n  kind: K\n  playbook: nope.yml\n", "watches.yaml:1: playbook: " + filepath.Join(dir, "nope.yml") + " was not found"},
		"nothing to run":  {"- version: v1\n  kind: K\n", "watches.yaml:1: must specify Role or Playbook"},
		"bad bool":        {"- version: v1\n  kind: K\n  playbook: pb.yml\n  manageStatus: maybe\n", `watches.yaml:4: expected a boolean, got "maybe"`},
		"bad period":      {"- version: v1\n  kind: K\n  playbook: pb.yml\n  reconcilePeriod: soon\n", `watches.yaml:4: invalid reconcilePeriod "soon"`},
		"duplicate":       {"- {version: v1, kind: K, playbook: pb.yml}\n- {version: v1, kind: K, playbook: pb.yml}\n", "watches.yaml:2: duplicate GVK: /v1, Kind=K"},
		"nameless final":  {"- {version: v1, kind: K, playbook: pb.yml, finalizer: {role: x}}\n", "watches.yaml:1: finalizer must have name"},
		"not a list":      {"version: v1\n", "watches.yaml:1: watches file must be a list of watches"},
		"finalizer vars ": {"- {version: v1, kind: K, playbook: pb.yml, finalizer: {name: f, vars: {a: 1}}}\n", ""},
	} {
		path := writeFile(t, dir, "watches.yaml", tc.src)
		_, _, err := Load(path, LoadOptions{Dir: dir, Getenv: func(string) (string, bool) { return "", false }})
		if tc.want == "" {
			require.NoError(t, err, name)
			continue
		}
		require.Error(t, err, name)
		require.Contains(t, err.Error(), tc.want, name)
	}
}

func TestParameters(t *testing.T) {
	obj := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "cache.example.com/v1alpha1", "kind": "Memcached",
		"metadata": map[string]any{"name": "m", "namespace": "ns"},
		"spec":     map[string]any{"size": int64(3), "replicaCount": "{{ x }}", "nested": map[string]any{"fooBar": true}},
	}}
	w := &Watch{GVK: schema.GroupVersionKind{Group: "cache.example.com", Version: "v1alpha1", Kind: "Memcached"}, SnakeCaseParameters: true,
		Vars: value.DictOf("size", 5), Finalizer: &Finalizer{Name: "f", Vars: value.DictOf("cleanup", true)}}
	p := w.Parameters(obj, false)
	require.Equal(t, 5, p.Default("size", nil), "watch vars win")
	require.Equal(t, "{{ x }}", p.Default("replica_count", nil))
	require.Equal(t, true, p.Default("nested", nil).(*value.Dict).Default("foo_bar", nil), "snake_cased recursively")
	require.Equal(t, "m", p.Default("ansible_operator_meta", nil).(*value.Dict).Default("name", nil))
	raw := p.Default("_cache_example_com_memcached", nil).(*value.Dict)
	require.Equal(t, "Memcached", raw.Default("kind", nil))
	require.Equal(t, "{{ x }}", p.Default("_cache_example_com_memcached_spec", nil).(*value.Dict).Default("replicaCount", nil), "raw spec keeps its keys")
	require.False(t, p.Has("cleanup"))
	require.True(t, w.Parameters(obj, true).Has("cleanup"), "finalizer vars on deletion")

	w.MarkUnsafe, w.SnakeCaseParameters, w.Vars = true, false, nil
	p = w.Parameters(obj, false)
	require.Equal(t, value.Unsafe("{{ x }}"), p.Default("replicaCount", nil))
	require.Equal(t, value.Unsafe("Memcached"), p.Default("_cache_example_com_memcached", nil).(*value.Dict).Default("kind", nil))
	require.Equal(t, "_app_example_com_my_kind", ObjectVar("app.example-com", "My-Kind"))
}

func TestStatusConditions(t *testing.T) {
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	t1 := t0.Add(time.Minute)
	st := StatusOf(map[string]any{"status": map[string]any{"test": "hello world"}}, t0)
	st.MarkRunning(t0)
	require.Equal(t, []Condition{{Type: CondRunning, Status: "True", Reason: "Running", Message: "Running reconciliation", LastTransitionTime: t0}}, st.Conditions)
	res := &AnsibleResult{OK: 3, Changed: 1, Completion: t1.Add(123456 * time.Microsecond)}
	st.MarkDone(t1, res, nil)
	require.Equal(t, []string{CondRunning, CondSuccessful, CondFailure}, types(st))
	running := st.Get(CondRunning)
	require.Equal(t, "Successful", running.Reason)
	require.Equal(t, t0, running.LastTransitionTime, "status unchanged: the transition time stays")
	m := st.Map()
	require.Equal(t, "hello world", m["test"])
	c0 := m["conditions"].([]any)[0].(map[string]any)
	require.Equal(t, "2026-01-02T03:05:05.123456+00:00", c0["ansibleResult"].(map[string]any)["completion"])
	require.Equal(t, "2026-01-02T03:04:05Z", c0["lastTransitionTime"])

	// The next run: Successful goes False while running, then a failure.
	st = StatusOf(map[string]any{"status": m}, t1)
	st.MarkRunning(t1)
	require.Equal(t, "False", st.Get(CondSuccessful).Status)
	st.MarkDone(t1, res, []string{"boom", "bang"})
	require.Equal(t, "False", st.Get(CondRunning).Status)
	fail := st.Get(CondFailure)
	require.Equal(t, "True", fail.Status)
	require.Equal(t, "Failed", fail.Reason)
	require.Equal(t, "boom\nbang", fail.Message)
	require.Equal(t, []string{CondRunning, CondFailure, CondSuccessful}, types(st))
}

func types(s *Status) []string {
	var out []string
	for _, c := range s.Conditions {
		out = append(out, c.Type)
	}
	return out
}
