package kubetest_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cfzt/cfzt-runner/internal/kubetest"
	"github.com/stretchr/testify/require"
	appsv1 "k8s.io/api/apps/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
)

// poll waits until cond holds; the deadline only bounds a broken cluster.
func poll(t *testing.T, ctx context.Context, what string, cond func() (bool, error)) {
	t.Helper()
	err := wait.PollUntilContextTimeout(ctx, 100*time.Millisecond, 90*time.Second, true, func(context.Context) (bool, error) {
		return cond()
	})
	require.NoError(t, err, "waiting for %s", what)
}

// TestComponents starts a cluster with kube-controller-manager,
// kube-scheduler and two KWOK nodes and checks that each does its job.
func TestComponents(t *testing.T) {
	c, err := kubetest.Start(kubetest.Options{Controllers: true, Scheduler: true, FakeNodes: 2, MissingImages: []string{"registry.invalid/missing:1"}})
	require.NoError(t, err)
	defer c.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	kube, err := kubernetes.NewForConfig(c.AdminConfig)
	require.NoError(t, err)

	for _, name := range []string{"kube-controller-manager", "kube-scheduler", "kwok"} {
		require.FileExists(t, c.ComponentLog(name))
	}
	nodes, err := kube.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
	require.NoError(t, err)
	require.Len(t, nodes.Items, 2)
	for _, n := range nodes.Items {
		require.True(t, nodeReady(&n), "node %s is Ready", n.Name)
	}

	t.Run("DeploymentPodsRunOnFakeNodes", func(t *testing.T) {
		ns := createNamespace(t, ctx, kube, "deploy")
		replicas := int32(3)
		labels := map[string]string{"app": "web"}
		_, err := kube.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{
			ObjectMeta: metav1.ObjectMeta{Name: "web"},
			Spec: appsv1.DeploymentSpec{
				Replicas: &replicas,
				Selector: &metav1.LabelSelector{MatchLabels: labels},
				Template: corev1.PodTemplateSpec{
					ObjectMeta: metav1.ObjectMeta{Labels: labels},
					Spec: corev1.PodSpec{
						InitContainers: []corev1.Container{{Name: "init", Image: "busybox"}},
						Containers:     []corev1.Container{{Name: "web", Image: "nginx"}, {Name: "sidecar", Image: "busybox"}},
					},
				},
			},
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		poll(t, ctx, "the Deployment to be available", func() (bool, error) {
			d, err := kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			return err == nil && d.Status.AvailableReplicas == 3 && d.Status.ObservedGeneration == d.Generation, err
		})
		pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		require.NoError(t, err)
		require.Len(t, pods.Items, 3)
		for _, p := range pods.Items {
			require.Equal(t, corev1.PodRunning, p.Status.Phase, p.Name)
			require.Contains(t, []string{"fake-node-0", "fake-node-1"}, p.Spec.NodeName, "scheduled onto a fake node")
			require.NotEmpty(t, p.Status.PodIP)
			require.Len(t, p.Status.ContainerStatuses, 2)
			for _, cs := range p.Status.ContainerStatuses {
				require.True(t, cs.Ready, "%s/%s ready", p.Name, cs.Name)
				require.NotNil(t, cs.State.Running)
			}
			require.Len(t, p.Status.InitContainerStatuses, 1)
			require.NotNil(t, p.Status.InitContainerStatuses[0].State.Terminated)
		}

		// Deleting a pod ends it (KWOK plays the kubelet) and the
		// ReplicaSet replaces it.
		victim := pods.Items[0].Name
		require.NoError(t, kube.CoreV1().Pods(ns).Delete(ctx, victim, metav1.DeleteOptions{}))
		poll(t, ctx, "the pod to be replaced", func() (bool, error) {
			_, err := kube.CoreV1().Pods(ns).Get(ctx, victim, metav1.GetOptions{})
			if !apierrors.IsNotFound(err) {
				return false, nil
			}
			d, err := kube.AppsV1().Deployments(ns).Get(ctx, "web", metav1.GetOptions{})
			return err == nil && d.Status.AvailableReplicas == 3, err
		})

		// Garbage collection: deleting the Deployment in the foreground
		// removes its ReplicaSet and pods.
		fg := metav1.DeletePropagationForeground
		require.NoError(t, kube.AppsV1().Deployments(ns).Delete(ctx, "web", metav1.DeleteOptions{PropagationPolicy: &fg}))
		poll(t, ctx, "garbage collection", func() (bool, error) {
			rs, err := kube.AppsV1().ReplicaSets(ns).List(ctx, metav1.ListOptions{})
			if err != nil {
				return false, err
			}
			pods, err := kube.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
			return len(rs.Items) == 0 && len(pods.Items) == 0, err
		})
	})

	// Pods that never become ready: one whose image the nodes cannot
	// pull, one whose container crashes. A pod beside them runs.
	t.Run("FailingPods", func(t *testing.T) {
		ns := createNamespace(t, ctx, kube, "failing")
		pod := func(name, image string, command ...string) {
			_, err := kube.CoreV1().Pods(ns).Create(ctx, &corev1.Pod{
				ObjectMeta: metav1.ObjectMeta{Name: name},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: image, Command: command}}},
			}, metav1.CreateOptions{})
			require.NoError(t, err)
		}
		pod("no-image", "registry.invalid/missing:1")
		pod("crash", "alpine:3.8", "/bin/false")
		pod("fine", "alpine:3.8", "sleep", "1000")
		waiting := func(name string) *corev1.Pod {
			var got *corev1.Pod
			poll(t, ctx, name+" to be started", func() (bool, error) {
				p, err := kube.CoreV1().Pods(ns).Get(ctx, name, metav1.GetOptions{})
				got = p
				return err == nil && p.Status.PodIP != "" && len(p.Status.ContainerStatuses) == 1, err
			})
			return got
		}
		p := waiting("no-image")
		require.Equal(t, corev1.PodPending, p.Status.Phase)
		require.False(t, p.Status.ContainerStatuses[0].Ready)
		require.Equal(t, "ImagePullBackOff", p.Status.ContainerStatuses[0].State.Waiting.Reason)
		p = waiting("crash")
		require.Equal(t, corev1.PodRunning, p.Status.Phase)
		require.False(t, p.Status.ContainerStatuses[0].Ready)
		require.Equal(t, "CrashLoopBackOff", p.Status.ContainerStatuses[0].State.Waiting.Reason)
		require.Equal(t, int32(1), p.Status.ContainerStatuses[0].LastTerminationState.Terminated.ExitCode)
		p = waiting("fine")
		require.Equal(t, corev1.PodRunning, p.Status.Phase)
		require.True(t, p.Status.ContainerStatuses[0].Ready)
	})

	t.Run("ServiceAccountTokenSecret", func(t *testing.T) {
		ns := createNamespace(t, ctx, kube, "sa")
		_, err := kube.CoreV1().ServiceAccounts(ns).Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "robot"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		_, err = kube.CoreV1().Secrets(ns).Create(ctx, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Name: "robot-token", Annotations: map[string]string{corev1.ServiceAccountNameKey: "robot"}},
			Type:       corev1.SecretTypeServiceAccountToken,
		}, metav1.CreateOptions{})
		require.NoError(t, err)
		var secret *corev1.Secret
		poll(t, ctx, "the token controller", func() (bool, error) {
			s, err := kube.CoreV1().Secrets(ns).Get(ctx, "robot-token", metav1.GetOptions{})
			secret = s
			return err == nil && len(s.Data[corev1.ServiceAccountTokenKey]) > 0, err
		})
		caPEM, err := os.ReadFile(c.CAFile)
		require.NoError(t, err)
		require.Equal(t, string(caPEM), string(secret.Data[corev1.ServiceAccountRootCAKey]), "ca.crt is the cluster CA")
		require.Equal(t, ns, string(secret.Data[corev1.ServiceAccountNamespaceKey]))

		// The token is signed with the key the apiserver verifies.
		cfg := rest.CopyConfig(c.AdminConfig)
		cfg.BearerToken = string(secret.Data[corev1.ServiceAccountTokenKey])
		robot, err := kubernetes.NewForConfig(cfg)
		require.NoError(t, err)
		review, err := robot.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		require.NoError(t, err)
		require.Equal(t, "system:serviceaccount:"+ns+":robot", review.Status.UserInfo.Username)
	})

	t.Run("NamespaceDeletion", func(t *testing.T) {
		ns := createNamespace(t, ctx, kube, "gone")
		_, err := kube.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
		require.NoError(t, err)
		require.NoError(t, kube.CoreV1().Namespaces().Delete(ctx, ns, metav1.DeleteOptions{}))
		poll(t, ctx, "the namespace controller", func() (bool, error) {
			_, err := kube.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
	})

	t.Run("AddFakeNode", func(t *testing.T) {
		n, err := c.AddFakeNode(ctx, "extra", map[string]string{"pool": "extra"})
		require.NoError(t, err)
		require.Equal(t, "extra", n.Labels["pool"])
		require.Equal(t, "true", n.Labels[kubetest.FakeNodeLabel])
		require.True(t, nodeReady(n))
	})
}

func TestComponentErrors(t *testing.T) {
	ctx := testContext(t)
	// The shared cluster runs no KWOK.
	_, err := cluster.AddFakeNode(ctx, "n", nil)
	require.ErrorContains(t, err, "Options.FakeNodes")

	missing := filepath.Join(t.TempDir(), "no-such-binary")
	_, err = kubetest.Start(kubetest.Options{Controllers: true, ControllersBinary: missing})
	require.ErrorContains(t, err, "kube-controller-manager")
	require.ErrorContains(t, err, missing)

	// A binary that exits at once: the error names it and shows its log.
	_, err = kubetest.Start(kubetest.Options{Scheduler: true, ControllersBinary: "/bin/false"})
	require.ErrorContains(t, err, "kube-scheduler exited")
}

func nodeReady(n *corev1.Node) bool {
	for _, cond := range n.Status.Conditions {
		if cond.Type == corev1.NodeReady {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

func createNamespace(t *testing.T, ctx context.Context, kube kubernetes.Interface, name string) string {
	t.Helper()
	_, err := kube.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{})
	require.NoError(t, err)
	return name
}

// TestPodGracePeriod: with PodGracePeriod, a deleted pod stays, terminating,
// until its deletionTimestamp (the end of its grace period), and is then
// removed.
func TestPodGracePeriod(t *testing.T) {
	c, err := kubetest.Start(kubetest.Options{FakeNodes: 1, PodGracePeriod: true})
	require.NoError(t, err)
	defer c.Stop()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kube, err := kubernetes.NewForConfig(c.AdminConfig)
	require.NoError(t, err)
	pods := kube.CoreV1().Pods("default")
	_, err = pods.Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "slow"},
		Spec:       corev1.PodSpec{NodeName: "fake-node-0", Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	require.NoError(t, err)
	poll(t, ctx, "the pod to run", func() (bool, error) {
		p, err := pods.Get(ctx, "slow", metav1.GetOptions{})
		return err == nil && p.Status.Phase == corev1.PodRunning, err
	})
	grace := int64(4)
	require.NoError(t, pods.Delete(ctx, "slow", metav1.DeleteOptions{GracePeriodSeconds: &grace}))
	p, err := pods.Get(ctx, "slow", metav1.GetOptions{})
	require.NoError(t, err, "the pod is still there, terminating")
	require.NotNil(t, p.DeletionTimestamp)
	end := p.DeletionTimestamp.Time
	poll(t, ctx, "the pod to be removed", func() (bool, error) {
		_, err := pods.Get(ctx, "slow", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
	require.False(t, time.Now().Before(end), "removed at the end of its grace period, not before")
}
