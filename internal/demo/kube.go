package demo

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/dynamic"
)

// Resources the demo reads and writes.
var (
	gvrTenant   = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttenants"}
	gvrTemplate = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrusttemplates"}
	gvrConfig   = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflarezerotrustoperatorconfigs"}
	gvrTask     = schema.GroupVersionResource{Group: "cfzt.cloudflare.com", Version: "v1alpha1", Resource: "cloudflaretasks"}
	gvrRoute    = schema.GroupVersionResource{Group: "gateway.networking.k8s.io", Version: "v1", Resource: "httproutes"}
	gvrCM       = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	gvrSecret   = schema.GroupVersionResource{Version: "v1", Resource: "secrets"}
	gvrService  = schema.GroupVersionResource{Version: "v1", Resource: "services"}
	gvrDeploy   = schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
)

var getOpts = metav1.GetOptions{}

// Annotation names of the operator (docs/annotations.md).
const (
	annPrefix        = "cfzt.cloudflare.com/"
	annEnabled       = annPrefix + "enabled"
	annHostname      = annPrefix + "hostname"
	annLastReconcile = annPrefix + "lastReconcile"
	annCNAME         = annPrefix + "cnameRecordId"
	annDNS           = annPrefix + "dnsRecordId"
	annApp           = annPrefix + "accessAppId"
	annPolicies      = annPrefix + "accessPolicyIds"
	annToken         = annPrefix + "serviceTokenId"
	annTokenSecret   = annPrefix + "serviceTokenSecretName"
	annHostRoute     = annPrefix + "hostnameRouteId"
)

// readObjects decodes every YAML document of the .yaml files in dir, in
// file name order.
func readObjects(dir string) ([]*unstructured.Unstructured, error) {
	files, err := filepath.Glob(filepath.Join(dir, "*.yaml"))
	if err != nil {
		return nil, err
	}
	sort.Strings(files)
	var out []*unstructured.Unstructured
	for _, f := range files {
		objs, err := readObjectsFile(f)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

// readObjectsFile decodes the YAML documents of one file.
func readObjectsFile(path string) ([]*unstructured.Unstructured, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*unstructured.Unstructured
	dec := utilyaml.NewYAMLOrJSONDecoder(strings.NewReader(string(data)), 4096)
	for {
		var obj map[string]any
		if err := dec.Decode(&obj); err != nil {
			if errors.Is(err, io.EOF) {
				return out, nil
			}
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		if len(obj) > 0 {
			out = append(out, &unstructured.Unstructured{Object: obj})
		}
	}
}

// toYAML renders one object as a document for kubetest's ApplyYAML (JSON is
// YAML).
func toYAML(obj *unstructured.Unstructured) string {
	data, err := json.Marshal(obj.Object)
	if err != nil {
		panic(err) // decoded from YAML: always encodable
	}
	return string(data)
}

// list returns the objects of gvr in namespace ns ("" for all), sorted by
// namespace and name.
func list(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns string) ([]unstructured.Unstructured, error) {
	var l *unstructured.UnstructuredList
	var err error
	if ns == "" {
		l, err = dyn.Resource(gvr).List(ctx, metav1.ListOptions{})
	} else {
		l, err = dyn.Resource(gvr).Namespace(ns).List(ctx, metav1.ListOptions{})
	}
	if err != nil {
		return nil, err
	}
	items := l.Items
	sort.Slice(items, func(i, j int) bool {
		if items[i].GetNamespace() != items[j].GetNamespace() {
			return items[i].GetNamespace() < items[j].GetNamespace()
		}
		return items[i].GetName() < items[j].GetName()
	})
	return items, nil
}

// mergePatch applies a JSON merge patch to a namespaced object.
func mergePatch(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string, patch map[string]any) error {
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(gvr).Namespace(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{})
	return err
}

// setLoadBalancerIP gives a LoadBalancer Service an ingress IP, as a cloud
// controller would (the demo's kube-apiserver runs no controllers).
func setLoadBalancerIP(ctx context.Context, dyn dynamic.Interface, ns, name, ip string) error {
	patch := map[string]any{"status": map[string]any{"loadBalancer": map[string]any{"ingress": []any{map[string]any{"ip": ip}}}}}
	data, err := json.Marshal(patch)
	if err != nil {
		return err
	}
	_, err = dyn.Resource(gvrService).Namespace(ns).Patch(ctx, name, types.MergePatchType, data, metav1.PatchOptions{}, "status")
	return err
}

// stateConfigMapName is the name kube_worker gives a route's state
// ConfigMap and CloudflareTask: cfzt-NAMESPACE.NAME (a namespace holds
// no dot, so two routes cannot share it), shortened with a hash past 63
// characters (docs/cloudflaretask.md).
func stateConfigMapName(ns, name string) string {
	return shortName("cfzt-" + ns + "." + name)
}

// exists reports whether a namespaced object exists.
func exists(ctx context.Context, dyn dynamic.Interface, gvr schema.GroupVersionResource, ns, name string) (bool, error) {
	_, err := dyn.Resource(gvr).Namespace(ns).Get(ctx, name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return false, nil
	}
	return err == nil, err
}

// condition returns the status and reason of a status condition.
func condition(obj *unstructured.Unstructured, typ string) (status, reason string) {
	conds, _, _ := unstructured.NestedSlice(obj.Object, "status", "conditions")
	for _, c := range conds {
		m, _ := c.(map[string]any)
		if m["type"] == typ {
			s, _ := m["status"].(string)
			r, _ := m["reason"].(string)
			return s, r
		}
	}
	return "", ""
}

// shortName keeps a name within 63 characters: a longer one becomes its
// first 52 characters, "-" and the first 10 hex digits of its SHA-256.
func shortName(n string) string {
	if len(n) <= 63 {
		return n
	}
	sum := sha256.Sum256([]byte(n))
	return strings.TrimRight(n[:52], "-.") + "-" + hex.EncodeToString(sum[:])[:10]
}
