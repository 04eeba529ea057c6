package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"time"

	coordv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	kresource "k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/util/retry"

	"github.com/cfzt/cfzt-runner/internal/kubetest/kubelet"
)

// keepNodeAlive plays the heartbeat of the kubelet stand-in's Node until
// ctx ends: it renews the Node's lease in kube-node-lease and its Ready
// condition every few seconds, as a kubelet does, so that the node
// lifecycle controller of kube-controller-manager neither taints the
// node unreachable nor evicts its pods; the not-ready taints the node got
// at creation are taken off at once, and it is given room for pods, so
// that the scheduler can use it.
func keepNodeAlive(ctx context.Context, cfg *rest.Config, node string) error {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return err
	}
	beat := func() error {
		n, err := cs.CoreV1().Nodes().Get(ctx, node, metav1.GetOptions{})
		if err != nil {
			return err
		}
		now := metav1.Now()
		lease, err := cs.CoordinationV1().Leases("kube-node-lease").Get(ctx, node, metav1.GetOptions{})
		dur := int32(40)
		mt := metav1.NewMicroTime(now.Time)
		if apierrors.IsNotFound(err) {
			lease = &coordv1.Lease{
				ObjectMeta: metav1.ObjectMeta{Name: node, Namespace: "kube-node-lease",
					OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: node, UID: n.UID}}},
				Spec: coordv1.LeaseSpec{HolderIdentity: &node, LeaseDurationSeconds: &dur, RenewTime: &mt},
			}
			if _, err := cs.CoordinationV1().Leases("kube-node-lease").Create(ctx, lease, metav1.CreateOptions{}); err != nil {
				return err
			}
		} else if err != nil {
			return err
		} else {
			lease.Spec.RenewTime = &mt
			if _, err := cs.CoordinationV1().Leases("kube-node-lease").Update(ctx, lease, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		// Room for pods: the stand-in reports no capacity of its own.
		n.Status.Capacity = corev1.ResourceList{
			corev1.ResourcePods:   kresource.MustParse("110"),
			corev1.ResourceCPU:    kresource.MustParse("32"),
			corev1.ResourceMemory: kresource.MustParse("64Gi"),
		}
		n.Status.Allocatable = n.Status.Capacity
		for i := range n.Status.Conditions {
			if n.Status.Conditions[i].Type == corev1.NodeReady {
				n.Status.Conditions[i].LastHeartbeatTime = now
			}
		}
		if n, err = cs.CoreV1().Nodes().UpdateStatus(ctx, n, metav1.UpdateOptions{}); err != nil {
			return err
		}
		var keep []corev1.Taint
		for _, t := range n.Spec.Taints {
			if !strings.HasPrefix(t.Key, "node.kubernetes.io/") {
				keep = append(keep, t)
			}
		}
		if len(keep) != len(n.Spec.Taints) {
			n.Spec.Taints = keep
			if _, err := cs.CoreV1().Nodes().Update(ctx, n, metav1.UpdateOptions{}); err != nil {
				return err
			}
		}
		return nil
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, beat); err != nil {
		return err
	}
	go func() {
		t := time.NewTicker(5 * time.Second)
		defer t.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-t.C:
				_ = beat() // a conflict is retried at the next beat
			}
		}
	}()
	return nil
}

// seedRoot gives a container root what an image has that the targets
// use: /tmp (k8s_copy works there) and /etc/resolv.conf (k8s_exec cats
// it).
func seedRoot(root, _ string) {
	if os.Mkdir(filepath.Join(root, "tmp"), 0o755) == nil {
		_ = os.Chmod(filepath.Join(root, "tmp"), 0o1777)
	}
	f := filepath.Join(root, "etc", "resolv.conf")
	if os.MkdirAll(filepath.Dir(f), 0o755) == nil {
		_ = os.WriteFile(f, []byte("search default.svc.cluster.local svc.cluster.local cluster.local\nnameserver 10.96.0.10\noptions ndots:5\n"), 0o644)
	}
}

// imageCommands plays what the targets' images lack: openjdk:17 has no
// find (k8s_copy copies out of it by kubernetes.core's fallback listing).
// It answers as a container runtime does for a command not on PATH.
func imageCommands(e *kubelet.Exec) (int, bool) {
	if strings.HasPrefix(e.Image, "openjdk") && len(e.Command) > 0 && (e.Command[0] == "find" || e.Command[0] == "/usr/bin/find") {
		fmt.Fprintf(e.Stdout, "OCI runtime exec failed: exec failed: unable to start container process: exec: %q: executable file not found in $PATH: unknown\r\n", e.Command[0])
		return 126, true
	}
	return 0, false
}
