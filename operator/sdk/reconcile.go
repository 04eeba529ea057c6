package sdk

import (
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cfzt/cfzt-runner/modules/k8s"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
)

// The annotations ansible-operator reads on a watched object.
const (
	AnnotationReconcilePeriod = "ansible.sdk.operatorframework.io/reconcile-period"
	AnnotationVerbosity       = "ansible.sdk.operatorframework.io/verbosity"
)

// errRunFailed makes the queue retry an object whose run failed.
var errRunFailed = errors.New("event runner on failed")

// resource is the client of the controller's kind in an object's namespace.
func (c *Controller) resource(ns string) dynamic.ResourceInterface {
	if c.Namespaced {
		return c.Env.Dyn.Resource(c.Resource).Namespace(ns)
	}
	return c.Env.Dyn.Resource(c.Resource)
}

// reconcile is ansible-operator's Reconcile for one object: it returns the
// delay before the next reconcile (0: none) or an error for a retry with
// backoff.
func (c *Controller) reconcile(ctx context.Context, k key) (time.Duration, error) {
	ctx = withReconcileLog(ctx, strings.ToLower(c.Watch.GVK.Kind)+"-"+strings.ToLower(c.Watch.GVK.Version)+"-controller", k.Namespace, k.Name)
	obj := c.cached(k)
	if obj == nil {
		return 0, nil
	}
	obj = obj.DeepCopy()
	job := strconv.Itoa(rand.Int())
	kv := []any{"key", objectKey(obj.GetNamespace(), obj.GetName()), "name", obj.GetName(), "namespace", obj.GetNamespace(), "gvk", c.Watch.GVK.String(), "job", job}
	period := c.Watch.ReconcilePeriod
	if period == 0 {
		period = c.Env.ReconcilePeriod
	}
	if s, ok := obj.GetAnnotations()[AnnotationReconcilePeriod]; ok {
		d, err := time.ParseDuration(s)
		if err != nil {
			c.markError(ctx, k, fmt.Sprintf("Unable to parse reconcile period annotation: %v", err))
			c.Env.Log.Error("reconciler", "Unable to parse reconcile period annotation", err, kv...)
			return period, err
		}
		period = d
	}
	deleted := obj.GetDeletionTimestamp() != nil
	fin := c.Watch.Finalizer
	hasFin := fin != nil && slices.Contains(obj.GetFinalizers(), fin.Name)
	if !hasFin && deleted {
		c.Env.Log.Info("reconciler", "Resource is terminated, skipping reconciliation", kv...)
		return 0, nil
	}
	if !hasFin && fin != nil {
		obj.SetFinalizers(append(obj.GetFinalizers(), fin.Name))
		updated, err := c.resource(k.Namespace).Update(ctx, obj, metav1.UpdateOptions{})
		if err != nil {
			c.Env.Log.Error("reconciler", "Unable to update cr with finalizer", err, kv...)
			return period, err
		}
		obj = updated
	}
	if _, ok := obj.Object["spec"].(map[string]any); !ok {
		obj.Object["spec"] = map[string]any{}
	}
	if c.Watch.ManageStatus {
		if err := c.updateStatus(ctx, k, func(s *Status) { s.MarkRunning(c.Env.now()) }); err != nil {
			c.Env.Log.Error("reconciler", "Unable to update the status to mark cr as running", err, kv...)
			return period, err
		}
	}
	out := c.run(ctx, obj, deleted, kv)
	return c.finish(ctx, k, out, deleted, period, kv)
}

// run runs the watch's role or playbook (its finalizer's on deletion) for
// obj and records its duration.
func (c *Controller) run(ctx context.Context, obj *unstructured.Unstructured, finalizing bool, kv []any) Outcome {
	playbook, role := c.Watch.Playbook, c.Watch.Role
	if finalizing {
		playbook, role = c.Watch.FinalizerRun()
		c.Env.Log.Info("reconciler", "Resource is marked for deletion, running finalizer", append(kv, "Finalizer", c.Watch.Finalizer.Name)...)
	}
	verbosity := c.Watch.AnsibleVerbosity
	if s, ok := obj.GetAnnotations()[AnnotationVerbosity]; ok {
		if n, err := strconv.Atoi(s); err == nil {
			verbosity = n
		}
	}
	if c.Env.InjectOwner {
		ctx = k8s.WithOwner(ctx, c.owner(obj))
	}
	start := time.Now()
	out := c.Env.Runner.Run(ctx, Job{Playbook: playbook, Role: role, Vars: c.Watch.Parameters(obj, finalizing),
		Verbosity: verbosity, Log: c.Env.Log, Level: c.Env.Level, LogKV: kv})
	c.Env.Metrics.ReconcileDuration(c.Watch.GVK.String(), time.Since(start))
	return out
}

// owner is obj as the owner of what its run creates; created objects of
// new kinds start dependent watches.
func (c *Controller) owner(obj *unstructured.Unstructured) *k8s.Owner {
	return &k8s.Owner{APIVersion: obj.GetAPIVersion(), Kind: obj.GetKind(), Name: obj.GetName(), Namespace: obj.GetNamespace(),
		UID: string(obj.GetUID()), ClusterScoped: !c.Namespaced, Created: c.deps.created}
}

// finish applies a run's outcome: the finalizer comes off after a
// successful deletion run, the status is marked done, and a failed run is
// retried with backoff.
func (c *Controller) finish(ctx context.Context, k key, out Outcome, deleted bool, period time.Duration, kv []any) (time.Duration, error) {
	if out.Requeue {
		c.Env.Log.Info("reconciler", fmt.Sprintf("Set the reconciliation to occur after %s", out.RequeueAfter), kv...)
		return out.RequeueAfter, nil
	}
	if out.Stats == nil {
		err := errors.New("did not receive playbook_on_stats event")
		if out.Err != nil {
			err = fmt.Errorf("%w: %v", err, out.Err)
		}
		c.Env.Log.Error("reconciler", "Unable to run reconciliation", err, kv...)
		return period, err
	}
	obj, err := c.resource(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	ok := len(out.Failures) == 0
	fin := c.Watch.Finalizer
	switch {
	case deleted && fin != nil && ok:
		obj.SetFinalizers(slices.DeleteFunc(obj.GetFinalizers(), func(f string) bool { return f == fin.Name }))
		if _, err := c.resource(k.Namespace).Update(ctx, obj, metav1.UpdateOptions{}); err != nil {
			c.Env.Log.Error("reconciler", "Failed to remove finalizer", err, kv...)
			return period, err
		}
	case obj.GetDeletionTimestamp() != nil && fin != nil:
		// Deleted while the run went on: the finalizer runs next.
		period = 5 * time.Second
	}
	if c.Watch.ManageStatus {
		res := &AnsibleResult{OK: out.Stats.OK, Changed: out.Stats.Changed, Skipped: out.Stats.Skipped, Failures: out.Stats.Failed,
			Completion: out.Completed.UTC().Truncate(time.Microsecond)}
		result := "succeeded"
		if !ok {
			result = "failed"
		}
		c.Env.Metrics.ReconcileResult(c.Watch.GVK.String(), result)
		err := c.updateStatus(ctx, k, func(s *Status) { s.MarkDone(c.Env.now(), res, out.Failures) })
		if err != nil && !apierrors.IsNotFound(err) {
			c.Env.Log.Error("reconciler", "Failed to mark status done", err, kv...)
		}
		if !ok {
			return period, errRunFailed
		}
		if apierrors.IsNotFound(err) {
			err = nil
		}
		return period, err
	}
	if !ok {
		return period, errors.New("received failed task event")
	}
	return period, nil
}

// updateStatus reads the object afresh, applies change to its status and
// writes it through the status subresource.
func (c *Controller) updateStatus(ctx context.Context, k key, change func(*Status)) error {
	obj, err := c.resource(k.Namespace).Get(ctx, k.Name, metav1.GetOptions{})
	if err != nil {
		return err
	}
	st := StatusOf(obj.Object, c.Env.now())
	change(st)
	obj.Object["status"] = st.Map()
	_, err = c.resource(k.Namespace).UpdateStatus(ctx, obj, metav1.UpdateOptions{})
	return err
}

// markError records a reconcile that could not run, as a failed reconcile.
func (c *Controller) markError(ctx context.Context, k key, msg string) {
	c.Env.Metrics.ReconcileResult(c.Watch.GVK.String(), "failed")
	if c.Watch.ManageStatus {
		_ = c.updateStatus(ctx, k, func(s *Status) { s.MarkError(c.Env.now(), msg) })
	}
}
