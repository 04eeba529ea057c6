package k8s

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/discovery"
)

// gadgetCRD has a status subresource and typed fields, like the
// operator's own CRDs. TestMain installs it; sprocketCRD, the same with
// other names, is installed by TestCRDInstalledAndUsedInSameRun itself.
const gadgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: gadgets.test.cfzt.io
spec:
  group: test.cfzt.io
  names: {kind: Gadget, plural: gadgets, singular: gadget, shortNames: [gdg], listKind: GadgetList}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    subresources: {status: {}}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer}
              owner: {type: string}
          status:
            type: object
            x-kubernetes-preserve-unknown-fields: true
`

var sprocketCRD = strings.NewReplacer("gadgets", "sprockets", "Gadget", "Sprocket", "gadget", "sprocket", "gdg", "spr").Replace(gadgetCRD)

var gadgetGVR = schema.GroupVersionResource{Group: "test.cfzt.io", Version: "v1", Resource: "gadgets"}

// TestCRDInstalledAndUsedInSameRun installs a CRD with the k8s module and
// uses its kind in the same run: the discovery cache, filled before the
// CRD existed, must be refreshed on the miss.
func TestCRDInstalledAndUsedInSameRun(t *testing.T) {
	ns := namespace(t, "crd-same-run")
	shared := module.NewShared()
	info := ok(t, call{mod: "k8s_info", shared: shared, args: "{api_version: test.cfzt.io/v1, kind: Sprocket, namespace: " + ns + "}"})
	require.Equal(t, false, get(t, info, "api_found"))
	require.Equal(t, []any{}, get(t, info, "resources"))
	require.Equal(t, `Failed to find API for resource with apiVersion "test.cfzt.io/v1" and kind "Sprocket"`, get(t, info, "msg"))
	// The run's RESTMapper (for other users of the clients) misses it too.
	clients, err := ClientsFor(shared, lookup(adminEnv()), value.NewDict(0))
	require.NoError(t, err)
	sprocket := schema.GroupKind{Group: "test.cfzt.io", Kind: "Sprocket"}
	_, err = clients.Mapper.RESTMapping(sprocket, "v1")
	require.True(t, meta.IsNoMatchError(err), "%v", err)

	res := ok(t, call{mod: "k8s", shared: shared, args: "{wait: true, wait_condition: {type: Established}, wait_timeout: 30, wait_sleep: 1, definition: " + yamlFlow(sprocketCRD) + "}"})
	require.True(t, changed(res))
	require.Equal(t, "create", get(t, res, "method"))
	// The apiserver publishes an Established CRD in discovery a moment
	// later: wait until an independent discovery client lists it, so that
	// what is tested is the run's own stale cache refreshing on the miss.
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	require.Eventually(t, func() bool {
		list, err := dc.ServerResourcesForGroupVersion("test.cfzt.io/v1")
		if err != nil {
			return false
		}
		for _, r := range list.APIResources {
			if r.Kind == "Sprocket" {
				return true
			}
		}
		return false
	}, 30*time.Second, 100*time.Millisecond)

	res = ok(t, call{mod: "k8s", shared: shared, args: `
definition:
  apiVersion: test.cfzt.io/v1
  kind: Sprocket
  metadata: {name: g1, namespace: ` + ns + `}
  spec: {size: 3, owner: ann}
  status: {phase: Ignored}`})
	require.True(t, changed(res))
	require.Equal(t, 3, get(t, res, "result.spec.size"))
	// The server drops status on create when a status subresource exists.
	_, hasStatus := get(t, res, "result").(*value.Dict).Get("status")
	require.False(t, hasStatus)

	info = ok(t, call{mod: "k8s_info", shared: shared, args: "{api_version: test.cfzt.io/v1, kind: spr, namespace: " + ns + "}"})
	require.Equal(t, true, get(t, info, "api_found"))
	items := get(t, info, "resources").([]any)
	require.Len(t, items, 1)
	require.Equal(t, "Sprocket", get(t, items[0], "kind"))
	require.Equal(t, "test.cfzt.io/v1", get(t, items[0], "apiVersion"))

	// The mapper filled before the CRD existed finds it after a refresh.
	mapping, err := clients.Mapper.RESTMapping(sprocket, "v1")
	require.NoError(t, err)
	require.Equal(t, "sprockets", mapping.Resource.Resource)
}

// yamlFlow turns a YAML document into a JSON flow value usable inline.
func yamlFlow(doc string) string {
	docs, _, err := value.DecodeYAML("doc", []byte(doc))
	if err != nil {
		panic(err)
	}
	return value.JSON(docs[0], value.JSONOptions{})
}

func TestConfigMapLifecycle(t *testing.T) {
	ns := namespace(t, "cm-life")
	def := `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: c1, namespace: ` + ns + `, labels: {app: x}}, data: {k: "1"}}}`
	res := ok(t, call{mod: "k8s", args: def})
	require.True(t, changed(res))
	require.Equal(t, "create", get(t, res, "method"))
	require.Equal(t, "1", get(t, res, "result.data.k"))

	// A second identical call changes nothing.
	res = ok(t, call{mod: "k8s", args: def})
	require.False(t, changed(res))
	require.Equal(t, "update", get(t, res, "method"))

	// A change is a patch; --diff shows only what differs.
	res = ok(t, call{mod: "k8s", diff: true, args: `{kind: ConfigMap, name: c1, namespace: ` + ns + `, definition: {data: {k: "2", extra: "e"}}}`})
	require.True(t, changed(res))
	require.Equal(t, "1", get(t, res, "diff.before.data.k"))
	require.Equal(t, "2", get(t, res, "diff.after.data.k"))
	require.Equal(t, "e", get(t, res, "diff.after.data.extra"))
	require.Equal(t, "x", get(t, res, "result.metadata.labels.app"), "a patch keeps fields it does not mention")

	// state: patched never creates.
	res = ok(t, call{mod: "k8s", args: `{state: patched, kind: ConfigMap, name: nope, namespace: ` + ns + `, definition: {data: {a: b}}}`})
	require.False(t, changed(res))
	require.Equal(t, []any{"resource 'kind=ConfigMap,name=nope' was not found but will not be created as 'state' parameter has been set to 'patched'"}, get(t, res, "warnings"))
	require.Nil(t, live(t, cmGVR, ns, "nope"))

	res = ok(t, call{mod: "k8s", args: `{state: absent, kind: ConfigMap, name: c1, namespace: ` + ns + `}`})
	require.True(t, changed(res))
	require.Equal(t, "delete", get(t, res, "method"))
	require.Equal(t, "Status", get(t, res, "result.kind"))
	require.Nil(t, live(t, cmGVR, ns, "c1"))

	res = ok(t, call{mod: "k8s", args: `{state: absent, kind: ConfigMap, name: c1, namespace: ` + ns + `}`})
	require.False(t, changed(res))
	require.Equal(t, value.NewDict(0), get(t, res, "result"))
}

func TestSecretDataIsReturnedButTokensNeverAre(t *testing.T) {
	ns := namespace(t, "secrets")
	def := `{definition: {apiVersion: v1, kind: Secret, metadata: {name: s1, namespace: ` + ns + `}, stringData: {password: hunter2}}}`
	res := ok(t, call{mod: "k8s", args: def})
	require.True(t, changed(res))
	require.Equal(t, "aHVudGVyMg==", get(t, res, "result.data.password"))
	noSecrets(t, res)
	// stringData is folded into data by the server: nothing changes.
	res = ok(t, call{mod: "k8s", args: def})
	require.False(t, changed(res))

	res = ok(t, call{mod: "k8s", args: `{kind: Secret, name: s1, namespace: ` + ns + `, definition: {data: {password: bmV3}}}`})
	require.True(t, changed(res))
	require.Equal(t, "bmV3", get(t, liveObj(t, secretGVR, ns, "s1"), "data.password"))

	ok(t, call{mod: "k8s", args: `{state: absent, kind: Secret, name: s1, namespace: ` + ns + `}`})
	require.Nil(t, live(t, secretGVR, ns, "s1"))
}

const deployment = `
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: NS}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: app, image: "nginx:1", env: [{name: A, value: "1"}]}
      - {name: side, image: "busybox:1"}
`

func TestDeploymentStrategicMerge(t *testing.T) {
	ns := namespace(t, "deploy")
	def := strings.ReplaceAll(deployment, "NS", ns)
	res := ok(t, call{mod: "k8s", args: "{definition: " + yamlFlow(def) + "}"})
	require.True(t, changed(res))
	res = ok(t, call{mod: "k8s", args: "{definition: " + yamlFlow(def) + "}"})
	require.False(t, changed(res), "defaulted fields must not count as a change")

	// A strategic merge patch merges containers by name.
	res = ok(t, call{mod: "k8s", diff: true, args: `
kind: Deployment
api_version: apps/v1
name: web
namespace: ` + ns + `
definition:
  spec:
    replicas: 2
    template: {spec: {containers: [{name: app, image: "nginx:2"}]}}`})
	require.True(t, changed(res))
	containers := get(t, res, "result.spec.template.spec.containers").([]any)
	require.Len(t, containers, 2)
	require.Equal(t, "nginx:2", get(t, containers[0], "image"))
	require.Equal(t, []any{value.DictOf("name", "A", "value", "1")}, get(t, containers[0], "env"))
	// The diff of a keyed list names the element by its merge key.
	before := get(t, res, "diff.before.spec.template.spec.containers").([]any)
	require.Equal(t, value.DictOf("image", "nginx:1", "name", "app"), before[0])

	// merge_type merge replaces the list instead.
	res = ok(t, call{mod: "k8s", args: `{kind: Deployment, api_version: apps/v1, name: web, namespace: ` + ns + `, merge_type: [merge],
definition: {spec: {template: {spec: {containers: [{name: only, image: "nginx:3"}]}}}}}`})
	require.Len(t, get(t, res, "result.spec.template.spec.containers").([]any), 1)

	// Without controllers a Deployment never becomes ready: wait times out
	// with kubernetes.core's message and the object in the result.
	res, msg := fails(t, call{mod: "k8s", args: `{kind: Deployment, api_version: apps/v1, name: web, namespace: ` + ns + `, state: patched, definition: {spec: {replicas: 1}}, wait: true, wait_timeout: 1, wait_sleep: 1}`})
	require.Equal(t, `"Deployment" "web": Timed out waiting on resource`, msg)
	require.Equal(t, "web", get(t, res, "result.metadata.name"))
	require.Contains(t, []any{1, 2}, get(t, res, "duration"))

	ok(t, call{mod: "k8s", args: `{state: absent, kind: Deployment, api_version: apps/v1, name: web, namespace: ` + ns + `, delete_options: {propagationPolicy: Background, gracePeriodSeconds: 0}}`})
	require.Nil(t, live(t, deployGVR, ns, "web"))
}

func TestConflictAndNotFound(t *testing.T) {
	ns := namespace(t, "conflict")
	res := ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: claim, namespace: ` + ns + `}, data: {owner: ""}}}`})
	rv := value.Str(get(t, res, "result.metadata.resourceVersion"))

	// The first claim with the current resourceVersion wins...
	claim := `{state: patched, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: claim, namespace: ` + ns + `, resourceVersion: "` + rv + `"}, data: {owner: WHO}}}`
	res = ok(t, call{mod: "k8s", args: strings.ReplaceAll(claim, "WHO", "worker-1")})
	require.True(t, changed(res))
	// ...and the second, with the same (now stale) version, gets a 409.
	res, msg := fails(t, call{mod: "k8s", args: strings.ReplaceAll(claim, "WHO", "worker-2")})
	require.True(t, strings.HasPrefix(msg, `Failed to patch object: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"Operation cannot be fulfilled on configmaps \\"claim\\": the object has been modified; please apply your changes to the latest version and try again"`), msg)
	require.True(t, strings.HasSuffix(msg, `"code":409}\n'`), msg)
	require.Equal(t, "Conflict", get(t, res, "reason"))
	require.Equal(t, "worker-1", get(t, liveObj(t, cmGVR, ns, "claim"), "data.owner"))

	// A create in a missing namespace reports the server's 404.
	res, msg = fails(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: x, namespace: missing-ns}}}`})
	require.Equal(t, `Failed to create object: b'{"kind":"Status","apiVersion":"v1","metadata":{},"status":"Failure","message":"namespaces \\"missing-ns\\" not found","reason":"NotFound","details":{"name":"missing-ns","kind":"namespaces"},"code":404}\n'`, msg)
	require.Equal(t, "Not Found", get(t, res, "reason"))

	// k8s_info of a missing object is an empty list, not a failure.
	info := ok(t, call{mod: "k8s_info", args: `{kind: ConfigMap, name: absent, namespace: ` + ns + `}`})
	require.Equal(t, []any{}, get(t, info, "resources"))
	require.Equal(t, true, get(t, info, "api_found"))

	_, msg = fails(t, call{mod: "k8s", args: `{kind: Nope, name: x, namespace: ` + ns + `}`})
	require.Equal(t, "Failed to find exact match for v1.Nope by [kind, name, singularName, shortNames]", msg)
	_, msg = fails(t, call{mod: "k8s", args: `{kind: ConfigMap, name: x}`})
	require.Equal(t, "Failed to create object: Namespace is required for v1.ConfigMap", msg)
}

func TestCheckModeChangesNothing(t *testing.T) {
	ns := namespace(t, "check")
	def := `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ` + ns + `}, data: {k: v}}}`
	res := ok(t, call{mod: "k8s", check: true, args: def})
	require.True(t, changed(res))
	require.Equal(t, "create", get(t, res, "method"))
	require.Equal(t, "v", get(t, res, "result.data.k"))
	require.Nil(t, live(t, cmGVR, ns, "c"))

	ok(t, call{mod: "k8s", args: def})
	res = ok(t, call{mod: "k8s", check: true, diff: true, args: `{kind: ConfigMap, name: c, namespace: ` + ns + `, definition: {data: {k: w}}}`})
	require.True(t, changed(res))
	require.Equal(t, "w", get(t, res, "diff.after.data.k"))
	require.Equal(t, "v", get(t, liveObj(t, cmGVR, ns, "c"), "data.k"))

	res = ok(t, call{mod: "k8s", check: true, args: `{state: absent, kind: ConfigMap, name: c, namespace: ` + ns + `}`})
	require.True(t, changed(res))
	require.NotNil(t, live(t, cmGVR, ns, "c"))

	res = ok(t, call{mod: "k8s", check: true, args: `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: c, namespace: ` + ns + `}, data: {k: applied}}}`})
	require.True(t, changed(res))
	require.Equal(t, "v", get(t, liveObj(t, cmGVR, ns, "c"), "data.k"))
}

func TestDefinitionForms(t *testing.T) {
	ns := namespace(t, "forms")
	multi := "apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m1, labels: {set: a}}\n---\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: m2, labels: {set: a}}\n"
	res := ok(t, call{mod: "k8s", args: "{namespace: " + ns + ", definition: " + value.JSON(multi, value.JSONOptions{}) + "}"})
	require.True(t, changed(res))
	results := get(t, res, "result.results").([]any)
	require.Len(t, results, 2)
	require.Equal(t, "m2", get(t, results[1], "result.metadata.name"))
	require.Equal(t, "create", get(t, results[1], "method"))

	// A list mixing a dict and a YAML string, and a *List kind.
	res = ok(t, call{mod: "k8s", args: `
namespace: ` + ns + `
definition:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: m3, labels: {set: b}}}
- |
  apiVersion: v1
  kind: ConfigMapList
  items:
  - metadata: {name: m4, labels: {set: b}}`})
	require.Len(t, get(t, res, "result.results").([]any), 2)
	require.NotNil(t, live(t, cmGVR, ns, "m4"))

	// src: a file found next to the task, under files/.
	dir := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "files"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "files", "cm.yml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: m5}\ndata: {from: file}\n"), 0o644))
	res = ok(t, call{mod: "k8s", dir: dir, args: "{src: cm.yml, namespace: " + ns + "}"})
	require.Equal(t, "file", get(t, res, "result.data.from"))

	// label_selectors with absent deletes what matches.
	res = ok(t, call{mod: "k8s", args: "{state: absent, kind: ConfigMap, namespace: " + ns + ", label_selectors: [set=a]}"})
	require.True(t, changed(res))
	require.Nil(t, live(t, cmGVR, ns, "m1"))
	require.Nil(t, live(t, cmGVR, ns, "m2"))
	require.NotNil(t, live(t, cmGVR, ns, "m3"))

	// label_selectors with present skips a definition that does not match.
	res = ok(t, call{mod: "k8s", args: "{label_selectors: [set=b], definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: m6, namespace: " + ns + "}}}"})
	require.False(t, changed(res))
	require.Equal(t, "resource 'kind=ConfigMap,name=m6,namespace="+ns+"' filtered by label_selectors.", get(t, res, "msg"))

	// delete_all removes every object of the kind in the namespace.
	res = ok(t, call{mod: "k8s", args: "{state: absent, kind: ConfigMap, namespace: " + ns + ", delete_all: true}"})
	require.True(t, changed(res))
	for _, n := range []string{"m3", "m4", "m5"} {
		require.Nil(t, live(t, cmGVR, ns, n))
	}
}

func TestServerSideApply(t *testing.T) {
	ns := namespace(t, "ssa")
	// Only server_side_apply makes apply server-side, with its manager.
	def := `{apply: true, server_side_apply: {field_manager: mine}, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ` + ns + `}, data: {k: "1"}}}`
	res := ok(t, call{mod: "k8s", args: def})
	require.True(t, changed(res))
	require.Equal(t, "apply", get(t, res, "method"))
	mf := get(t, res, "result.metadata.managedFields").([]any)
	require.Equal(t, "mine", get(t, mf[0], "manager"))
	require.Equal(t, "Apply", get(t, mf[0], "operation"))
	require.False(t, get(t, res, "result.metadata").(*value.Dict).Has("annotations"), "no last-applied annotation")
	res = ok(t, call{mod: "k8s", args: def})
	require.False(t, changed(res))

	// Another manager owning the field conflicts unless forced.
	other := `{apply: true, server_side_apply: {field_manager: other, force_conflicts: FORCE}, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ` + ns + `}, data: {k: "2"}}}`
	_, msg := fails(t, call{mod: "k8s", args: strings.ReplaceAll(other, "FORCE", "false")})
	require.True(t, strings.HasPrefix(msg, "Failed to apply object: b'"), msg)
	require.Contains(t, msg, "conflict")
	res = ok(t, call{mod: "k8s", args: strings.ReplaceAll(other, "FORCE", "true")})
	require.True(t, changed(res))
	require.Equal(t, "2", get(t, res, "result.data.k"))

	// A field the schema does not declare fails a server-side apply (the
	// client-side one prunes it: TestApplyDropsUnknownFields).
	_, msg = fails(t, call{mod: "k8s", args: `{apply: true, server_side_apply: {field_manager: mine}, definition: {apiVersion: test.cfzt.io/v1, kind: Gadget, metadata: {name: g, namespace: ` + ns + `}, spec: {size: 2, bogus: 1}}}`})
	require.Contains(t, msg, "bogus")
}

func TestArgumentValidation(t *testing.T) {
	_, msg := fails(t, call{mod: "k8s", args: "{kind: ConfigMap, name: x, namespace: default, merge_type: json}"})
	require.Equal(t, "value of merge_type must be one or more of: merge, strategic-merge. Got no match for: json", msg)
	_, msg = fails(t, call{mod: "k8s", args: "{kind: ConfigMap, name: x, state: gone}"})
	require.Equal(t, "value of state must be one of: present, absent, patched, got: gone", msg)
	src := filepath.Join(t.TempDir(), "a.yml")
	require.NoError(t, os.WriteFile(src, []byte("kind: ConfigMap\n"), 0o644))
	_, msg = fails(t, call{mod: "k8s", args: "{src: " + src + ", definition: {kind: ConfigMap}}"})
	require.Equal(t, "parameters are mutually exclusive: resource_definition|src", msg)
	_, msg = fails(t, call{mod: "k8s", dir: t.TempDir(), args: "{src: nothere.yml}"})
	require.True(t, strings.HasPrefix(msg, "Could not find or access 'nothere.yml'\nSearched in:\n\t"), msg)
	_, msg = fails(t, call{mod: "k8s_info", args: "{name: x}"})
	require.Equal(t, "missing required arguments: kind", msg)
	_, msg = fails(t, call{mod: "k8s_info", args: "{kind: ConfigMap, bogus: 1}"})
	require.True(t, strings.HasPrefix(msg, "Unsupported parameters for (kubernetes.core.k8s_info) module: bogus. Supported parameters include: api_key, api_version, ca_cert,"), msg)
	require.True(t, strings.HasSuffix(msg, "(api, cert_file, key_file, ssl_ca_cert, verify_ssl, version)."), msg)
	_, msg = fails(t, call{mod: "k8s", args: "{kind: ConfigMap, name: x, namespace: default, wait: maybe}"})
	require.True(t, strings.HasPrefix(msg, "argument 'wait' is of type str and we were unable to convert to bool: The value 'maybe' is not a valid boolean."), msg)
}

func TestInfoSelectorsAndWait(t *testing.T) {
	ns := namespace(t, "info")
	for i, tier := range []string{"web", "web", "db"} {
		ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: c` + value.Str(i) + `, namespace: ` + ns + `, labels: {tier: ` + tier + `}}}}`})
	}
	info := ok(t, call{mod: "k8s_info", args: "{kind: ConfigMap, namespace: " + ns + ", label_selectors: [tier=web]}"})
	require.Len(t, get(t, info, "resources").([]any), 2)
	info = ok(t, call{mod: "k8s_info", args: "{kind: ConfigMap, namespace: " + ns + ", label_selectors: ['tier in (db)']}"})
	require.Len(t, get(t, info, "resources").([]any), 1)
	info = ok(t, call{mod: "k8s_info", args: "{kind: ConfigMap, namespace: " + ns + ", field_selectors: [metadata.name=c1]}"})
	require.Equal(t, "c1", get(t, get(t, info, "resources").([]any)[0], "metadata.name"))
	info = ok(t, call{mod: "k8s_info", args: "{kind: ConfigMap, namespace: " + ns + ", name: c2, hidden_fields: [metadata.managedFields, metadata.labels]}"})
	item := get(t, info, "resources").([]any)[0].(*value.Dict)
	require.False(t, get(t, item, "metadata").(*value.Dict).Has("managedFields"))
	require.False(t, get(t, item, "metadata").(*value.Dict).Has("labels"))

	// wait on a missing object gives up after wait_timeout with nothing.
	info = ok(t, call{mod: "k8s_info", args: "{kind: ConfigMap, namespace: " + ns + ", name: later, wait: true, wait_timeout: 1, wait_sleep: 1}"})
	require.Equal(t, []any{}, get(t, info, "resources"))
}

// TestClientsCachedPerRun checks that one run reuses one set of clients per
// connection and that different credentials get their own.
func TestClientsCachedPerRun(t *testing.T) {
	shared := module.NewShared()
	a, err := ClientsFor(shared, lookup(adminEnv()), value.NewDict(0))
	require.NoError(t, err)
	b, err := ClientsFor(shared, lookup(adminEnv()), value.NewDict(0))
	require.NoError(t, err)
	require.Same(t, a, b)
	c, err := ClientsFor(shared, lookup(env(cluster.OperatorToken)), value.NewDict(0))
	require.NoError(t, err)
	require.NotSame(t, a, c)
	require.EqualValues(t, 200, a.Config.QPS)
	require.Equal(t, 400, a.Config.Burst)
	// The per-run mapper resolves a kind installed after it was filled.
	_, err = a.Mapper.RESTMapping(schema.GroupKind{Kind: "ConfigMap"}, "v1")
	require.NoError(t, err)
}

func lookup(m map[string]string) func(string) (string, bool) {
	return func(k string) (string, bool) { v, ok := m[k]; return v, ok }
}

func TestForceReplaceAndContinueOnError(t *testing.T) {
	ns := namespace(t, "replace")
	ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: r, namespace: ` + ns + `, labels: {keep: "no"}}, data: {a: "1", b: "2"}}}`})
	// force: true replaces the object: fields not given disappear.
	res := ok(t, call{mod: "k8s", args: `{force: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: r, namespace: ` + ns + `}, data: {a: "1"}}}`})
	require.True(t, changed(res))
	require.Equal(t, "replace", get(t, res, "method"))
	obj := liveObj(t, cmGVR, ns, "r")
	require.Equal(t, value.DictOf("a", "1"), get(t, obj, "data"))
	require.False(t, get(t, obj, "metadata").(*value.Dict).Has("labels"))

	// continue_on_error records each failure and goes on with the rest.
	res = ok(t, call{mod: "k8s", args: `
continue_on_error: true
definition:
- {apiVersion: v1, kind: ConfigMap, metadata: {name: bad, namespace: no-such-ns}}
- {apiVersion: v1, kind: ConfigMap, metadata: {name: good, namespace: ` + ns + `}}`})
	results := get(t, res, "result.results").([]any)
	require.Len(t, results, 2)
	require.Contains(t, value.Str(get(t, results[0], "error.msg")), `namespaces \\"no-such-ns\\" not found`)
	require.Equal(t, "Not Found", get(t, results[0], "error.reason"))
	require.Equal(t, "create", get(t, results[1], "method"))
	require.True(t, changed(res))
}
