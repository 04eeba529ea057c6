package kubetest_test

import (
	"context"
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilyaml "k8s.io/apimachinery/pkg/util/yaml"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
)

var cluster *kubetest.Cluster

func TestMain(m *testing.M) {
	kubetest.Main(m, func(c *kubetest.Cluster) { cluster = c })
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestClusterBasics(t *testing.T) {
	require.FileExists(t, cluster.CAFile)
	require.FileExists(t, cluster.AdminKubeconfig)
	require.FileExists(t, cluster.OperatorKubeconfig)
	require.Equal(t, "system:serviceaccount:cfzt-system:cfzt-operator", cluster.OperatorUser)

	// The kubeconfig files work on their own.
	cfg, err := clientcmd.BuildConfigFromFlags("", cluster.AdminKubeconfig)
	require.NoError(t, err)
	require.Equal(t, cluster.Host, cfg.Host)
	dc, err := discovery.NewDiscoveryClientForConfig(cfg)
	require.NoError(t, err)
	v, err := dc.ServerVersion()
	require.NoError(t, err)
	require.Equal(t, "v1.36.3", v.GitVersion)
}

func TestRBAC(t *testing.T) {
	ctx := testContext(t)
	admin, err := kubernetes.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	operator, err := kubernetes.NewForConfig(cluster.OperatorConfig)
	require.NoError(t, err)

	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: "kubetest", Namespace: "default"},
		Data:       map[string]string{"k": "v"},
	}
	_, err = admin.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)
	_, err = admin.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	require.True(t, apierrors.IsAlreadyExists(err), "second create: %v", err)

	_, err = operator.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
	require.True(t, apierrors.IsForbidden(err), "list secrets without RBAC: %v", err)

	err = cluster.ApplyYAML(ctx, `
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata:
  name: kubetest-secret-reader
rules:
- apiGroups: [""]
  resources: ["secrets"]
  verbs: ["get", "list", "watch"]
`)
	require.NoError(t, err)
	_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{
		ObjectMeta: metav1.ObjectMeta{Name: "kubetest-secret-reader"},
		RoleRef:    rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "kubetest-secret-reader"},
		Subjects:   []rbacv1.Subject{{Kind: "ServiceAccount", Namespace: "cfzt-system", Name: "cfzt-operator"}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)

	// RBAC changes reach the authorizer through an informer: poll briefly.
	require.Eventually(t, func() bool {
		_, err := operator.CoreV1().Secrets("").List(ctx, metav1.ListOptions{})
		return err == nil
	}, 10*time.Second, 50*time.Millisecond)

	// Still no write access.
	_, err = operator.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{
		ObjectMeta: metav1.ObjectMeta{Name: "nope"},
	}, metav1.CreateOptions{})
	require.True(t, apierrors.IsForbidden(err), "create secret: %v", err)
}

const widgetCRD = `
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets.kubetest.example.com
spec:
  group: kubetest.example.com
  scope: Namespaced
  names:
    plural: widgets
    singular: widget
    kind: Widget
    listKind: WidgetList
  versions:
  - name: v1
    served: true
    storage: true
    subresources:
      status: {}
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size:
                type: integer
          status:
            type: object
            properties:
              phase:
                type: string
`

func TestCRD(t *testing.T) {
	ctx := testContext(t)
	admin, err := kubernetes.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)

	// A mapper created before the CRD exists caches discovery without it.
	dc, err := discovery.NewDiscoveryClientForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	mapper := restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))
	gk := schema.GroupKind{Group: "kubetest.example.com", Kind: "Widget"}
	_, err = mapper.RESTMapping(gk, "v1")
	require.Error(t, err)

	// Create the CRD directly, not through ApplyYAML (which would wait).
	require.NoError(t, cluster.ApplyYAML(ctx, `
apiVersion: v1
kind: Namespace
metadata:
  name: widgets
`))
	dyn, err := dynamic.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	crd := &unstructured.Unstructured{}
	require.NoError(t, crd.UnmarshalJSON(yamlToJSON(t, widgetCRD)))
	_, err = dyn.Resource(schema.GroupVersionResource{
		Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions",
	}).Create(ctx, crd, metav1.CreateOptions{})
	require.NoError(t, err)

	require.NoError(t, cluster.WaitForCRD(ctx, "widgets.kubetest.example.com"))
	mapper.Reset()
	mapping, err := mapper.RESTMapping(gk, "v1")
	require.NoError(t, err)
	require.Equal(t, "widgets", mapping.Resource.Resource)

	w := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "kubetest.example.com/v1",
		"kind":       "Widget",
		"metadata":   map[string]any{"name": "w1", "namespace": "widgets"},
		"spec":       map[string]any{"size": int64(3)},
		"status":     map[string]any{"phase": "Ignored"},
	}}
	res := dyn.Resource(mapping.Resource).Namespace("widgets")
	created, err := res.Create(ctx, w, metav1.CreateOptions{})
	require.NoError(t, err)
	_, found, _ := unstructured.NestedString(created.Object, "status", "phase")
	require.False(t, found, "status must be dropped on create")
	require.EqualValues(t, 1, created.GetGeneration())

	require.NoError(t, unstructured.SetNestedField(created.Object, "Ready", "status", "phase"))
	updated, err := res.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	require.NoError(t, err)
	phase, _, _ := unstructured.NestedString(updated.Object, "status", "phase")
	require.Equal(t, "Ready", phase)
	require.EqualValues(t, 1, updated.GetGeneration(), "status updates do not bump generation")

	// ApplyYAML resolves the new kind too.
	require.NoError(t, cluster.ApplyYAML(ctx, `
apiVersion: kubetest.example.com/v1
kind: Widget
metadata:
  name: w2
  namespace: widgets
spec:
  size: 5
---
apiVersion: v1
kind: ConfigMap
metadata:
  name: w2
  namespace: widgets
data:
  a: b
`))
	_, err = res.Get(ctx, "w2", metav1.GetOptions{})
	require.NoError(t, err)
	_, err = admin.CoreV1().ConfigMaps("widgets").Get(ctx, "w2", metav1.GetOptions{})
	require.NoError(t, err)
}

func TestStartStopSecondCluster(t *testing.T) {
	if testing.Short() {
		t.Skip("starts a second apiserver")
	}
	c, err := kubetest.Start(kubetest.Options{OperatorNamespace: "other", OperatorServiceAccount: "op"})
	require.NoError(t, err)
	require.NotEqual(t, cluster.Host, c.Host)
	require.Equal(t, "system:serviceaccount:other:op", c.OperatorUser)
	dir := c.Dir
	c.Stop()
	c.Stop()
	_, err = os.Stat(dir)
	require.True(t, os.IsNotExist(err), "dir removed: %v", err)
}

func yamlToJSON(t *testing.T, y string) []byte {
	t.Helper()
	js, err := utilyaml.ToJSON([]byte(y))
	require.NoError(t, err)
	return js
}
