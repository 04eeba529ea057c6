package kubetest_test

import (
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// A restarted apiserver answers on the same address, with the same
// credentials, and still has every object: its etcd data survives.
func TestRestartKeepsAddressAndData(t *testing.T) {
	ctx := testContext(t)
	admin, err := kubernetes.NewForConfig(cluster.AdminConfig)
	require.NoError(t, err)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "survives-restart", Namespace: "default"}, Data: map[string]string{"k": "v"}}
	_, err = admin.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{})
	require.NoError(t, err)
	host := cluster.Host

	require.NoError(t, cluster.Restart(200*time.Millisecond))
	require.Equal(t, host, cluster.Host)
	got, err := admin.CoreV1().ConfigMaps("default").Get(ctx, "survives-restart", metav1.GetOptions{})
	require.NoError(t, err)
	require.Equal(t, "v", got.Data["k"])
}
