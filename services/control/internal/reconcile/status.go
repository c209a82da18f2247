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

// statusObject is a kollect.dev object: every kind has conditions and an
// observedGeneration (v1alpha1's status accessors).
type statusObject interface {
	client.Object
	GetConditions() []metav1.Condition
	SetConditions([]metav1.Condition)
	SetObservedGeneration(int64)
}

// set sets one condition on obj, stamped with obj's generation.
func set(obj statusObject, typ string, status metav1.ConditionStatus, reason, msg string) {
	conds := obj.GetConditions()
	meta.SetStatusCondition(&conds, metav1.Condition{
		Type: typ, Status: status, Reason: reason, Message: msg, ObservedGeneration: obj.GetGeneration(),
	})
	obj.SetConditions(conds)
}

// remove removes the condition typ from obj.
func remove(obj statusObject, typ string) {
	conds := obj.GetConditions()
	meta.RemoveStatusCondition(&conds, typ)
	obj.SetConditions(conds)
}

// ready sets Ready=True with reason Succeeded.
func ready(obj statusObject, msg string) {
	set(obj, v1alpha1.ConditionReady, metav1.ConditionTrue, v1alpha1.ReasonSucceeded, msg)
}

// notReady sets Ready=False.
func notReady(obj statusObject, reason, msg string) {
	set(obj, v1alpha1.ConditionReady, metav1.ConditionFalse, reason, msg)
}

// degraded sets Degraded=True with reason, or False when reason is empty.
func degraded(obj statusObject, reason, msg string) {
	if reason == "" {
		set(obj, v1alpha1.ConditionDegraded, metav1.ConditionFalse, v1alpha1.ReasonSucceeded, "working")
		return
	}
	set(obj, v1alpha1.ConditionDegraded, metav1.ConditionTrue, reason, msg)
}

// finish is deferred by every reconciler: it stamps observedGeneration,
// makes sure Ready is present, derives kstatus's Reconciling and Stalled
// from it, records an event per condition transition (reason = condition
// reason) and patches status once. A status patch on an object that is gone
// is not an error.
func (d *Deps) finish(ctx context.Context, before, obj statusObject) error {
	stamp(obj)
	d.recordTransitions(obj, before.GetConditions(), obj.GetConditions())
	if err := d.Client.Status().Patch(ctx, obj, client.MergeFrom(before)); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("patch status of %T %s: %w", obj, client.ObjectKeyFromObject(obj), err)
	}
	return nil
}

// stamp completes obj's status before it is written: observedGeneration,
// Ready (Unknown when no step set it), Reconciling and Stalled.
func stamp(obj statusObject) {
	obj.SetObservedGeneration(obj.GetGeneration())
	if meta.FindStatusCondition(obj.GetConditions(), v1alpha1.ConditionReady) == nil {
		set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "reconciling")
	}
	kstatus(obj)
}

// kstatus sets the conditions kstatus (Flux, Argo CD, kubectl wait) reads
// from Ready: Reconciling=True while Ready is Unknown, Stalled=True while
// Ready is False with a reason that stalls (v1alpha1.Stalls), each with
// Ready's reason and message, and removes them otherwise.
func kstatus(obj statusObject) {
	r := *meta.FindStatusCondition(obj.GetConditions(), v1alpha1.ConditionReady)
	mirror(obj, v1alpha1.ConditionReconciling, r, r.Status == metav1.ConditionUnknown)
	mirror(obj, v1alpha1.ConditionStalled, r, r.Status == metav1.ConditionFalse && v1alpha1.Stalls(r.Reason))
}

// mirror sets typ True with ready's reason and message when on, and removes
// it otherwise.
func mirror(obj statusObject, typ string, ready metav1.Condition, on bool) {
	if !on {
		remove(obj, typ)
		return
	}
	set(obj, typ, metav1.ConditionTrue, ready.Reason, ready.Message)
}

func (d *Deps) recordTransitions(obj statusObject, old, cur []metav1.Condition) {
	if d.Recorder == nil {
		return
	}
	for _, c := range cur {
		if c.Type == v1alpha1.ConditionReconciling || c.Type == v1alpha1.ConditionStalled {
			continue // they repeat Ready, which is announced
		}
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
