package reconcile

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// step is one step of a reconcile; run calls them in order. It may set the
// result (a requeue). A *v1alpha1.ReasonError it returns makes the object
// Ready=False with that reason and ends the reconcile without an error.
type step[T statusObject] func(ctx context.Context, obj T, res *ctrl.Result) error

// entry is how run treats an object's config entry.
type entry[T statusObject] struct {
	// ref is the entry the object compiles into; nil for kinds without one
	// (Profiles, Scopes).
	ref *bus.ConfigRef
	// finalizer holds the object until its entry is deleted (targets and
	// inventories, whose deletion the collector or aggregator must see).
	finalizer bool
	// suspended returns why the object is suspended, "" when it runs. A
	// suspended object keeps its entry, marked suspended.
	suspended func(T) string
}

// run is the one reconcile skeleton: fetch obj; when it is gone or being
// deleted, delete its entry (releasing the finalizer); add the finalizer;
// defer finish (one status patch); stop early when suspended; run the steps
// in order. A step's *v1alpha1.ReasonError becomes Ready=False and deletes
// the entry, so that no service works from an object that cannot run.
func run[T statusObject](ctx context.Context, d *Deps, req ctrl.Request, obj T, e entry[T], steps ...step[T]) (res ctrl.Result, err error) {
	if ok, err := d.admit(ctx, req, obj, e.ref, e.finalizer); !ok {
		return res, err
	}
	before := obj.DeepCopyObject().(T) //nolint:forcetypeassert // DeepCopyObject returns the same type
	defer func() { err = errors.Join(err, d.finish(ctx, before, obj)) }()
	if e.suspended != nil {
		if msg := e.suspended(obj); msg != "" {
			notReady(obj, v1alpha1.ReasonSuspended, msg)
			return res, d.suspendConfig(ctx, *e.ref, obj.GetGeneration())
		}
	}
	for _, s := range steps {
		err := s(ctx, obj, &res)
		if re, ok := errors.AsType[*v1alpha1.ReasonError](err); ok {
			notReady(obj, re.Reason, oneLine(re.Error()))
			if e.ref == nil {
				return res, nil
			}
			return res, d.deleteConfig(ctx, *e.ref)
		}
		if err != nil {
			return res, err
		}
	}
	return res, nil
}

// admit fetches obj. When the object is gone it deletes the entry ref;
// when it is being deleted it deletes the entry and then releases the
// finalizer; otherwise it makes sure the finalizer, when asked for, holds
// the object. ok is false when the reconcile ends here.
func (d *Deps) admit(ctx context.Context, req ctrl.Request, obj statusObject, ref *bus.ConfigRef, finalizer bool) (ok bool, err error) {
	if err := d.Client.Get(ctx, req.NamespacedName, obj); err != nil {
		if apierrors.IsNotFound(err) && ref != nil {
			return false, d.deleteConfig(ctx, *ref)
		}
		return false, client.IgnoreNotFound(err)
	}
	if obj.GetDeletionTimestamp() != nil {
		if ref == nil {
			return false, nil
		}
		return false, d.release(ctx, obj, *ref)
	}
	if !finalizer || !controllerutil.AddFinalizer(obj, Finalizer) {
		return true, nil
	}
	if err := d.Client.Update(ctx, obj); err != nil {
		return false, fmt.Errorf("add finalizer to %T %s: %w", obj, obj.GetName(), err)
	}
	return true, nil
}

// release deletes the config entry, then removes the finalizer (when the
// object has it), so the object never disappears while its entry is still
// readable.
func (d *Deps) release(ctx context.Context, obj statusObject, ref bus.ConfigRef) error {
	if err := d.deleteConfig(ctx, ref); err != nil {
		return err
	}
	if !controllerutil.RemoveFinalizer(obj, Finalizer) {
		return nil
	}
	if err := d.Client.Update(ctx, obj); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("remove finalizer from %T %s: %w", obj, obj.GetName(), err)
	}
	return nil
}
