package k8s

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/engine/module"
	"github.com/cfzt/cfzt-runner/engine/module/moduletest"
	"github.com/cfzt/cfzt-runner/engine/value"
	"github.com/stretchr/testify/require"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
)

// lastApplied reads the last-applied annotation of a live object.
func lastApplied(t *testing.T, obj any) string {
	t.Helper()
	return value.Str(get(t, obj, "metadata.annotations").(*value.Dict).Default(LastAppliedAnnotation, ""))
}

// patchLive changes a live object behind the module's back (another
// client), with a JSON merge patch.
func patchLive(t *testing.T, ns, name, patch string) {
	t.Helper()
	dyn, err := cluster.Dynamic()
	require.NoError(t, err)
	_, err = dyn.Resource(cmGVR).Namespace(ns).Patch(context.Background(), name, types.MergePatchType, []byte(patch), metav1.PatchOptions{})
	require.NoError(t, err)
}

func TestClientSideApply(t *testing.T) {
	ns := namespace(t, "csa")
	def := `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ` + ns + `, labels: {app: x}}, data: {k: "1", gone: "soon", note: "é"}}}`
	res := ok(t, call{mod: "k8s", args: def})
	require.True(t, changed(res))
	require.Equal(t, "apply", get(t, res, "method"))
	// The annotation is the definition as Python's json.dumps(sort_keys,
	// compact separators, ASCII escapes) writes it.
	want := `{"apiVersion":"v1","data":{"gone":"soon","k":"1","note":"\u00e9"},"kind":"ConfigMap","metadata":{"labels":{"app":"x"},"name":"a","namespace":"` + ns + `"}}`
	require.Equal(t, want, lastApplied(t, get(t, res, "result")))
	obj := liveObj(t, cmGVR, ns, "a")
	require.Equal(t, want, lastApplied(t, obj))
	// A client-side create: no Apply operation in managedFields.
	for _, mf := range get(t, obj, "metadata.managedFields").([]any) {
		require.NotEqual(t, "Apply", get(t, mf, "operation"))
	}
	rv := get(t, obj, "metadata.resourceVersion")

	// The same definition again changes nothing.
	res = ok(t, call{mod: "k8s", args: def})
	require.False(t, changed(res))
	require.Equal(t, rv, get(t, liveObj(t, cmGVR, ns, "a"), "metadata.resourceVersion"))

	// Another client adds a label and a key: the three-way merge keeps
	// them, deletes what the definition dropped, and changes what it
	// changed.
	patchLive(t, ns, "a", `{"metadata":{"labels":{"other":"y"}},"data":{"theirs":"t"}}`)
	def2 := `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: a, namespace: ` + ns + `, labels: {app: x}}, data: {k: "2", note: "é"}}}`
	res = ok(t, call{mod: "k8s", args: def2, diff: true})
	require.True(t, changed(res))
	obj = liveObj(t, cmGVR, ns, "a")
	require.Equal(t, "2", get(t, obj, "data.k"))
	require.Equal(t, "t", get(t, obj, "data.theirs"))
	require.False(t, get(t, obj, "data").(*value.Dict).Has("gone"))
	require.Equal(t, "y", get(t, obj, "metadata.labels.other"))
	require.Contains(t, lastApplied(t, obj), `"k":"2"`)
	require.Equal(t, "1", get(t, res, "diff.before.data.k"))

	// Someone else's change to a field the definition sets is put back.
	patchLive(t, ns, "a", `{"data":{"k":"drift"}}`)
	res = ok(t, call{mod: "k8s", args: def2})
	require.True(t, changed(res))
	require.Equal(t, "2", get(t, liveObj(t, cmGVR, ns, "a"), "data.k"))

	// Check mode reports the change and makes none.
	res = ok(t, call{mod: "k8s", check: true, args: def})
	require.True(t, changed(res))
	require.Equal(t, "2", get(t, liveObj(t, cmGVR, ns, "a"), "data.k"))
	res = ok(t, call{mod: "k8s", check: true, args: strings.ReplaceAll(def, "name: a,", "name: fresh,")})
	require.True(t, changed(res))
	require.Nil(t, live(t, cmGVR, ns, "fresh"))

	// An object created without apply has no annotation: the first apply
	// patches the whole definition in, with the annotation.
	ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: ` + ns + `}, data: {k: "1"}}}`})
	res = ok(t, call{mod: "k8s", args: `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: b, namespace: ` + ns + `}, data: {k: "1"}}}`})
	require.True(t, changed(res))
	require.NotEmpty(t, lastApplied(t, liveObj(t, cmGVR, ns, "b")))

	// apply needs a name.
	_, msg := fails(t, call{mod: "k8s", args: `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {namespace: ` + ns + `}}}`})
	require.Equal(t, "Failed to apply object: name is required to apply v1.ConfigMap", msg)
}

// TestApplyMergesListsByKey: containers merge by name, so a container
// another client added survives a re-apply that changes the image of the
// one the definition declares.
func TestApplyMergesListsByKey(t *testing.T) {
	ns := namespace(t, "csalist")
	dep := func(image string) string {
		return `{apply: true, definition: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ` + ns + `},
  spec: {selector: {matchLabels: {app: d}}, template: {metadata: {labels: {app: d}}, spec: {containers: [{name: main, image: ` + image + `, env: [{name: A, value: "1"}]}]}}}}}`
	}
	ok(t, call{mod: "k8s", args: dep("img:1")})
	dyn, err := cluster.Dynamic()
	require.NoError(t, err)
	// Add a sidecar with a strategic merge patch, as another tool would.
	_, err = dyn.Resource(deployGVR).Namespace(ns).Patch(context.Background(), "d", types.StrategicMergePatchType,
		[]byte(`{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"side:1"}]}}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	res := ok(t, call{mod: "k8s", args: dep("img:2")})
	require.True(t, changed(res))
	containers := get(t, liveObj(t, deployGVR, ns, "d"), "spec.template.spec.containers").([]any)
	images := map[string]string{}
	for _, c := range containers {
		images[value.Str(get(t, c, "name"))] = value.Str(get(t, c, "image"))
	}
	require.Equal(t, map[string]string{"main": "img:2", "sidecar": "side:1"}, images)
	res = ok(t, call{mod: "k8s", args: dep("img:2")})
	require.False(t, changed(res))
}

// TestApplyDropsUnknownFields: a client-side apply of a custom resource
// with a field its schema does not declare creates it with the field
// pruned and the server's warning, where a server-side apply fails.
func TestApplyDropsUnknownFields(t *testing.T) {
	ns := namespace(t, "csaprune")
	res := ok(t, call{mod: "k8s", args: `{apply: true, definition: {apiVersion: test.cfzt.io/v1, kind: Gadget, metadata: {name: g, namespace: ` + ns + `}, spec: {size: 2, bogus: 1}}}`})
	require.True(t, changed(res))
	spec := get(t, liveObj(t, gadgetGVR, ns, "g"), "spec").(*value.Dict)
	require.False(t, spec.Has("bogus"))
	require.True(t, value.Equal(2, spec.Default("size", nil)))
	warnings, _ := res.Default("warnings", nil).([]any)
	require.NotEmpty(t, warnings)
	require.Contains(t, value.Str(warnings[0]), "bogus")
	// Patching it again with the field (now with a last-applied
	// configuration) is also a warning, not an error.
	res = ok(t, call{mod: "k8s", args: `{apply: true, definition: {apiVersion: test.cfzt.io/v1, kind: Gadget, metadata: {name: g, namespace: ` + ns + `}, spec: {size: 3, bogus: 1}}}`})
	require.True(t, changed(res))
	require.True(t, value.Equal(3, get(t, liveObj(t, gadgetGVR, ns, "g"), "spec.size")))
}

// TestApplyHostileLastApplied: the last-applied annotation is whatever
// anyone with write access put there. Each malformed one fails the task
// with a message, changes nothing and never crashes the runner.
func TestApplyHostileLastApplied(t *testing.T) {
	ns := namespace(t, "csahostile")
	cases := map[string]string{
		"not json":   "the kubectl.kubernetes.io/last-applied-configuration annotation is not valid JSON",
		"null":       "argument of type 'NoneType' is not iterable",
		"[1, 2]":     "list indices must be integers or slices, not str",
		"7":          "argument of type 'int' is not iterable",
		`"text"`:     "'str' object does not support item assignment",
		`{"data":7}`: "", // a scalar where the definition has a mapping: handled
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":"x","data":{}}`: "",
	}
	i := 0
	for ann, want := range cases {
		i++
		name := "h" + string(rune('a'+i))
		ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: ` + name + `, namespace: ` + ns + `}, data: {k: "1"}}}`})
		annJSON, err := json.Marshal(ann)
		require.NoError(t, err)
		patchLive(t, ns, name, `{"metadata":{"annotations":{"`+LastAppliedAnnotation+`":`+string(annJSON)+`}}}`)
		args := `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: ` + name + `, namespace: ` + ns + `}, data: {k: "2"}}}`
		if want == "" {
			res := ok(t, call{mod: "k8s", args: args})
			require.True(t, changed(res), ann)
			require.Equal(t, "2", get(t, liveObj(t, cmGVR, ns, name), "data.k"), ann)
			continue
		}
		_, msg := fails(t, call{mod: "k8s", args: args})
		require.True(t, strings.HasPrefix(msg, "Failed to apply object: "+want), "%s: %s", ann, msg)
		require.Equal(t, "1", get(t, liveObj(t, cmGVR, ns, name), "data.k"), ann)
	}

	// A keyed list without its key in the last-applied configuration is
	// kubernetes.core's strategic merge error.
	ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ` + ns + `}, spec: {containers: [{name: c, image: i}]}}}`})
	dyn, err := cluster.Dynamic()
	require.NoError(t, err)
	podGVR := cmGVR
	podGVR.Resource = "pods"
	_, err = dyn.Resource(podGVR).Namespace(ns).Patch(context.Background(), "p", types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"`+LastAppliedAnnotation+`":"{\"spec\":{\"containers\":[{\"image\":\"i\"}]}}"}}}`), metav1.PatchOptions{})
	require.NoError(t, err)
	_, msg := fails(t, call{mod: "k8s", args: `{apply: true, definition: {apiVersion: v1, kind: Pod, metadata: {name: p, namespace: ` + ns + `}, spec: {containers: [{name: c, image: i}]}}}`})
	require.Equal(t, "Failed to apply object: Could not apply strategic merge to Pod/p: Expected key 'name' not found in position Pod.spec.containers", msg)
}

// runOwned runs one k8s call as part of an operator's run for owner.
func runOwned(t *testing.T, owner *Owner, args string) *value.Dict {
	t.Helper()
	docs, _, err := value.DecodeYAML("args", []byte(args))
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	h := moduletest.NewHost(nil)
	h.State = module.NewShared()
	req := &module.Request{Ctx: WithOwner(ctx, owner), Args: docs[0].(*value.Dict), Name: "k8s", Action: "k8s", Env: adminEnv(), Host: h}
	res, err := module.Func(runK8s).Run(req)
	require.NoError(t, err)
	require.False(t, value.Truthy(res.Default("failed", false)), "unexpected failure: %v", res.Default("msg", nil))
	return res
}

// TestApplyInjectsOwnerButNotIntoVirtualResources: within an operator's
// run, an applied object gets the owner reference (as every create
// through ansible-operator's proxy does), kept out of its last-applied
// configuration and kept by later applies; a SelfSubjectAccessReview,
// which can only be created, gets neither a reference nor the owner
// annotations.
func TestApplyInjectsOwnerButNotIntoVirtualResources(t *testing.T) {
	ns := namespace(t, "csaowner")
	ownerCM := ok(t, call{mod: "k8s", args: `{definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: owner, namespace: ` + ns + `}}}`})
	var created []string
	owner := &Owner{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", Namespace: ns, UID: value.Str(get(t, ownerCM, "result.metadata.uid")),
		Created: func(apiVersion, kind, namespace string, byRef bool) { created = append(created, kind) }}
	def := `{apply: true, definition: {apiVersion: v1, kind: ConfigMap, metadata: {name: dep, namespace: ` + ns + `}, data: {k: "1"}}}`
	runOwned(t, owner, def)
	obj := liveObj(t, cmGVR, ns, "dep")
	refs := get(t, obj, "metadata.ownerReferences").([]any)
	require.Len(t, refs, 1)
	require.Equal(t, "owner", get(t, refs[0], "name"))
	require.NotContains(t, lastApplied(t, obj), "ownerReferences")
	require.Equal(t, []string{"ConfigMap"}, created)

	res := runOwned(t, owner, strings.ReplaceAll(def, `"1"`, `"2"`))
	require.True(t, changed(res))
	obj = liveObj(t, cmGVR, ns, "dep")
	require.Len(t, get(t, obj, "metadata.ownerReferences").([]any), 1)
	require.Equal(t, "2", get(t, obj, "data.k"))

	// A review is created without the injected annotations, which the
	// apiserver would refuse (its metadata must be empty).
	res = runOwned(t, owner, `{definition: {apiVersion: authorization.k8s.io/v1, kind: SelfSubjectAccessReview,
  spec: {resourceAttributes: {verb: get, resource: configmaps, namespace: `+ns+`}}}}`)
	require.Equal(t, true, get(t, res, "result.status.allowed"))
	require.Equal(t, "create", get(t, res, "method"))
	require.Equal(t, []string{"ConfigMap"}, created, "a virtual resource is not watched")
}

// TestApplyPatchMatchesKubernetesCore runs the vectors that
// hack/record-apply-vectors.py recorded from kubernetes.core 6.1's own
// apply.py: for each live object and definition, the merge patch it
// sends, null when it only reads the object back, or its error.
func TestApplyPatchMatchesKubernetesCore(t *testing.T) {
	data, err := os.ReadFile("testdata/apply-vectors.json")
	require.NoError(t, err)
	doc, err := value.DecodeJSON(data)
	require.NoError(t, err)
	vectors := doc.([]any)
	require.NotEmpty(t, vectors)
	for _, v := range vectors {
		vec := v.(*value.Dict)
		name := value.Str(vec.Default("name", ""))
		live := vec.Default("live", nil).(*value.Dict)
		def := vec.Default("definition", nil).(*value.Dict)
		patch, err := applyPatch(live, def)
		if want, isErr := vec.Get("error"); isErr {
			require.Error(t, err, name)
			msg := err.Error()
			var ae *applyError
			if errors.As(err, &ae) && ae.strategic {
				msg = "Could not apply strategic merge to " + value.Str(field(def, "kind")) + "/" + value.Str(field(def, "metadata", "name")) + ": " + ae.msg
			}
			require.Equal(t, want, msg, name)
			continue
		}
		require.NoError(t, err, name)
		want := vec.Default("patch", nil)
		if want == nil {
			require.Nil(t, patch, name)
			continue
		}
		require.NotNil(t, patch, name)
		require.True(t, value.Equal(want, patch), "%s:\nwant %s\n got %s", name,
			value.JSON(want, value.JSONOptions{SortKeys: true}), value.JSON(patch, value.JSONOptions{SortKeys: true}))
	}
}

// TestDefaultAPIVersionSearchesEveryGroup: with api_version left at its
// default v1, kubernetes.core looks a kind missing from the core group up
// in every group's v1, as a Deployment in apps/v1.
func TestDefaultAPIVersionSearchesEveryGroup(t *testing.T) {
	ns := namespace(t, "anygroup")
	ok(t, call{mod: "k8s", args: `{definition: {apiVersion: apps/v1, kind: Deployment, metadata: {name: d, namespace: ` + ns + `},
  spec: {selector: {matchLabels: {app: d}}, template: {metadata: {labels: {app: d}}, spec: {containers: [{name: c, image: i}]}}}}}`})
	res := ok(t, call{mod: "k8s", args: `{state: patched, kind: Deployment, name: d, namespace: ` + ns + `, definition: {metadata: {labels: {x: y}}}}`})
	require.True(t, changed(res))
	require.Equal(t, "apps/v1", get(t, res, "result.apiVersion"))
	require.Equal(t, "y", get(t, liveObj(t, deployGVR, ns, "d"), "metadata.labels.x"))
	// By plural name too; an unknown kind is still not found.
	res = ok(t, call{mod: "k8s_info", args: `{kind: deployments, name: d, namespace: ` + ns + `}`})
	require.Len(t, res.Default("resources", nil), 1)
	_, msg := fails(t, call{mod: "k8s", args: `{state: patched, kind: NoSuchKind, name: d, namespace: ` + ns + `}`})
	require.Equal(t, "Failed to find exact match for v1.NoSuchKind by [kind, name, singularName, shortNames]", msg)
}
