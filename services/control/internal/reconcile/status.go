package reconcile

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// conditionsOf returns the conditions and observedGeneration fields of any
// kollect.dev object.
func conditionsOf(obj client.Object) (*[]metav1.Condition, *int64) {
	switch o := obj.(type) {
	case *v1alpha1.KollectProfile:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectTarget:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectClusterTarget:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectInventory:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectClusterInventory:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectSnapshotSink:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectDatabaseSink:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectEventSink:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectScope:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectClusterScope:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	case *v1alpha1.KollectConnectionTest:
		return &o.Status.Conditions, &o.Status.ObservedGeneration
	}
	panic(fmt.Sprintf("conditionsOf: %T is not a kollect.dev kind", obj))
}

// set sets one condition on obj, stamped with obj's generation.
func set(obj client.Object, typ string, status metav1.ConditionStatus, reason, msg string) {
	conds, _ := conditionsOf(obj)
	meta.SetStatusCondition(conds, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: obj.GetGeneration(),
	})
}

// ready sets Ready=True with reason Succeeded.
func ready(obj client.Object, msg string) {
	set(obj, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded, msg)
}

// notReady sets Ready=False.
func notReady(obj client.Object, reason, msg string) {
	set(obj, v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
}

// finish is deferred by every reconciler: it stamps observedGeneration,
// makes sure Ready is present, records an event per condition transition
// (reason = condition reason) and patches status once. A status patch on an
// object that is gone is not an error.
func (d *Deps) finish(ctx context.Context, before, obj client.Object) error {
	conds, observed := conditionsOf(obj)
	*observed = obj.GetGeneration()
	if meta.FindStatusCondition(*conds, v1alpha1.ConditionReady) == nil {
		set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "reconciling")
	}
	old, _ := conditionsOf(before)
	d.recordTransitions(obj, *old, *conds)
	if err := d.Client.Status().Patch(ctx, obj, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("patch status of %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

func (d *Deps) recordTransitions(obj client.Object, old, cur []metav1.Condition) {
	if d.Recorder == nil {
		return
	}
	for _, c := range cur {
		p := meta.FindStatusCondition(old, c.Type)
		if p != nil && p.Status == c.Status && p.Reason == c.Reason {
			continue
		}
		// The cache may not hold our last status patch yet: remember what
		// was announced, so a stale read does not repeat the event.
		key := string(obj.GetUID()) + "/" + c.Type
		if last, ok := d.announced.Load(key); ok && last == string(c.Status)+"/"+c.Reason {
			continue
		}
		d.announced.Store(key, string(c.Status)+"/"+c.Reason)
		typ := corev1.EventTypeNormal
		if bad(c) {
			typ = corev1.EventTypeWarning
		}
		d.Recorder.Eventf(obj, nil, typ, c.Reason, "Reconcile", "%s=%s: %s", c.Type, c.Status, c.Message)
	}
}

// bad reports whether a condition describes a problem.
func bad(c metav1.Condition) bool {
	switch c.Type {
	case v1alpha1.ConditionDegraded, v1alpha1.ConditionTLSInsecure:
		return c.Status == metav1.ConditionTrue
	}
	return c.Status == metav1.ConditionFalse
}
