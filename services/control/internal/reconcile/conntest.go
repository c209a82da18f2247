package reconcile

import (
	"context"
	"errors"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// defaultTTL is ttlSecondsAfterFinished when unset.
const defaultTTL = 300 * time.Second

// ConnectionTestReconciler runs each KollectConnectionTest once and deletes
// it ttlSecondsAfterFinished after it completed.
type ConnectionTestReconciler struct {
	*Deps
}

// Reconcile probes the named sink once, records the outcome, then waits for
// the TTL and deletes the test. It does not use run: a completed test is
// only expired (no status write), and adopt patches the object before the
// status snapshot finish diffs against is taken.
func (r *ConnectionTestReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	obj := &v1alpha1.KollectConnectionTest{}
	if err := r.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return res, nil
		}
		return res, err
	}
	if obj.DeletionTimestamp != nil {
		return res, nil
	}
	if obj.Status.Completed && obj.Status.CompletedAt != nil {
		return r.expire(ctx, obj)
	}
	if err := r.adopt(ctx, obj); err != nil {
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	if err := r.run(ctx, obj); err != nil {
		return res, err
	}
	now := metav1.NewTime(r.Now())
	obj.Status.Completed, obj.Status.CompletedAt = true, &now
	return ctrl.Result{RequeueAfter: ttl(obj)}, nil
}

func (r *ConnectionTestReconciler) run(ctx context.Context, obj *v1alpha1.KollectConnectionTest) error {
	sink := testedSink(obj)
	v, err := r.getSink(ctx, sink.Family, sink.Namespace, sink.Name)
	if err != nil {
		if !apierrors.IsNotFound(err) {
			return fmt.Errorf("get sink %s: %w", sink.BindingName(), err)
		}
		msg := fmt.Sprintf("spec.sinkRef: %s %s not found", sink.Family.SinkKind(), sink.Name)
		set(obj, v1alpha1.ConditionConnectionVerified, metav1.ConditionFalse, v1alpha1.ReasonSinkNotFound, msg)
		notReady(obj, v1alpha1.ReasonSinkNotFound, msg)
		return nil
	}
	reply, err := r.Prober.Probe(ctx, sink, v.obj.GetGeneration())
	if err != nil {
		return err
	}
	obj.Status.LatencyMs = reply.LatencyMs
	setConnection(obj, reply)
	if reply.OK {
		ready(obj, "probe completed")
	} else {
		notReady(obj, firstNonEmpty(reply.Reason, v1alpha1.ReasonConnectionTestFailed), oneLine(reply.Message))
	}
	return nil
}

// adopt makes the probed sink the owner of a test with spec.ownerSink, so
// that the garbage collector deletes the test with its sink. A missing sink
// is left to run, which reports it.
func (r *ConnectionTestReconciler) adopt(ctx context.Context, obj *v1alpha1.KollectConnectionTest) error {
	if !obj.Spec.OwnerSink {
		return nil
	}
	sink := testedSink(obj)
	v, err := r.getSink(ctx, sink.Family, sink.Namespace, sink.Name)
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("get sink %s: %w", sink.BindingName(), err)
	}
	for _, o := range obj.OwnerReferences {
		if o.UID == v.obj.GetUID() {
			return nil
		}
	}
	patch := client.MergeFrom(obj.DeepCopy())
	if err := controllerutil.SetOwnerReference(v.obj, obj, r.Client.Scheme()); err != nil {
		return fmt.Errorf("set owner of connection test %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	if err := r.Client.Patch(ctx, obj, patch); err != nil {
		return fmt.Errorf("set owner of connection test %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	return nil
}

// expire deletes a completed test whose TTL has passed, or waits for it.
func (r *ConnectionTestReconciler) expire(ctx context.Context, obj *v1alpha1.KollectConnectionTest) (ctrl.Result, error) {
	left := obj.Status.CompletedAt.Add(ttl(obj)).Sub(r.Now())
	if left > 0 {
		return ctrl.Result{RequeueAfter: left}, nil
	}
	if err := r.Client.Delete(ctx, obj, client.Preconditions{UID: &obj.UID}); err != nil && !apierrors.IsNotFound(err) {
		return ctrl.Result{}, fmt.Errorf("delete expired connection test %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	return ctrl.Result{}, nil
}

func ttl(obj *v1alpha1.KollectConnectionTest) time.Duration {
	if t := obj.Spec.TTLSecondsAfterFinished; t != nil {
		return time.Duration(*t) * time.Second
	}
	return defaultTTL
}

func testedSink(obj *v1alpha1.KollectConnectionTest) busv1.SinkRef {
	s := obj.Spec.SinkRef
	ref := busv1.SinkRef{Namespace: obj.Namespace}
	switch {
	case s.SnapshotSinkRef != "":
		ref.Family, ref.Name = busv1.FamilySnapshot, s.SnapshotSinkRef
	case s.DatabaseSinkRef != "":
		ref.Family, ref.Name = busv1.FamilyDatabase, s.DatabaseSinkRef
	default:
		ref.Family, ref.Name = busv1.FamilyEvent, s.EventSinkRef
	}
	return ref
}

func firstNonEmpty(s ...string) string {
	for _, v := range s {
		if v != "" {
			return v
		}
	}
	return ""
}
