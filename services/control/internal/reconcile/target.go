package reconcile

import (
	"context"
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
	"kollect.dev/kollect/services/control/internal/policy"
)

// TargetReconciler compiles KollectTargets into config entries.
type TargetReconciler struct {
	*Deps
	// Extract are the extraction options the collector compiles with.
	Extract extract.Options
}

// Reconcile runs the steps: finalizer, suspend, resolve the Profile, apply
// the Scope, compile, write the entry, fold collector reports.
func (r *TargetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	key := ref(busv1.KindTarget, req.Namespace, req.Name)
	obj := &v1alpha1.KollectTarget{}
	if ok, err := r.admit(ctx, req.NamespacedName, obj, key); !ok {
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	if obj.Spec.Suspend {
		notReady(obj, v1alpha1.ReasonSuspended, "spec.suspend is true; rows are kept")
		return res, r.suspendConfig(ctx, key, obj.Generation)
	}
	// Access is checked again periodically: RBAC can change without an
	// event control sees (a ClusterRole edited, an aggregated rule).
	res.RequeueAfter = r.Policy.AccessRecheck
	cfg, g, reason, msg, err := r.compile(ctx, obj)
	if err != nil {
		return res, err
	}
	if g.unserved {
		res.RequeueAfter = unservedRecheck
	}
	if reason != "" {
		notReady(obj, reason, msg)
		return res, r.deleteConfig(ctx, key)
	}
	if err := r.putConfig(ctx, key, cfg); err != nil {
		return res, err
	}
	foldTarget(obj, busv1.KindTarget, &obj.Status, r.Reports)
	if len(g.denied) > 0 {
		degraded(obj, v1alpha1.ReasonAccessDenied, deniedMessage(g.access.ServiceAccount, g.resource, g.denied))
		return res, nil
	}
	return res, r.boundedByScope(ctx, obj)
}

// boundedByScope degrades a target whose label or all-namespaces selection
// reaches beyond its Scope's allowedNamespaces: the collector collects only
// within them, and the status says so.
func (r *TargetReconciler) boundedByScope(ctx context.Context, obj *v1alpha1.KollectTarget) error {
	wide := obj.Spec.NamespaceSelector != nil || len(obj.Spec.IncludedNamespaces) == 0
	if !wide || meta.IsStatusConditionTrue(obj.Status.Conditions, v1alpha1.ConditionDegraded) {
		return nil
	}
	scope, err := r.Honoured(ctx, obj.Namespace)
	if err != nil || scope == nil || (scope.Spec.AllowedNamespaces == nil && scope.Spec.DeniedNamespaces == nil) {
		return err
	}
	degraded(obj, v1alpha1.ReasonScopeNamespaceDenied, fmt.Sprintf(
		"the selection reaches namespaces KollectScope %s does not allow; only allowed namespaces are collected", scope.Name))
	return nil
}

// compile resolves the Profile, the Scope and what the Target's
// ServiceAccount may list, and builds the entry; a non-empty reason says
// why the Target cannot run.
func (r *TargetReconciler) compile(ctx context.Context, obj *v1alpha1.KollectTarget) (cfg busv1.TargetConfig, g grant, reason, msg string, err error) {
	if err := obj.Spec.ProfileRef.DecodeError(); err != nil {
		return cfg, g, v1alpha1.ReasonInvalidSpec, oneLine(fmt.Sprintf("spec.profileRef: %v", err)), nil
	}
	prof := &v1alpha1.KollectProfile{}
	name := types.NamespacedName{Namespace: obj.Namespace, Name: obj.Spec.ProfileRef.Name}
	if err := r.Client.Get(ctx, name, prof); err != nil {
		if apierrors.IsNotFound(err) {
			return cfg, g, v1alpha1.ReasonProfileNotFound, fmt.Sprintf("spec.profileRef: KollectProfile %s not found", name), nil
		}
		return cfg, g, "", "", fmt.Errorf("get profile %s: %w", name, err)
	}
	if reason, msg := validateProfile(prof, r.Extract); reason != "" {
		return cfg, g, reason, fmt.Sprintf("KollectProfile %s: %s", name, msg), nil
	}
	scope, err := r.Honoured(ctx, obj.Namespace)
	if err != nil {
		return cfg, g, "", "", err
	}
	var rules *v1alpha1.ScopeRules
	if scope != nil {
		rules = &scope.Spec
	}
	gvk := prof.Spec.TargetGVK
	if !policy.AllowsGVK(rules, gvk) {
		return cfg, g, v1alpha1.ReasonScopeGVKDenied, fmt.Sprintf("KollectScope %s does not allow kind %s/%s %s", scope.Name, gvk.Group, gvk.Version, gvk.Kind), nil
	}
	if msg := policy.NamespaceViolation(rules, obj.Spec.IncludedNamespaces); msg != "" {
		return cfg, g, v1alpha1.ReasonScopeNamespaceDenied, fmt.Sprintf("%s (KollectScope %s)", msg, scope.Name), nil
	}
	sel, errs := selection.Compile(selection.ForTarget(obj, schemaGVK(gvk)))
	if len(errs) > 0 {
		return cfg, g, v1alpha1.ReasonInvalidSpec, oneLine(errs[0].Error()), nil
	}
	if g, reason, msg, err = r.grantFor(ctx, obj, schemaGVK(gvk), sel, rules); err != nil || reason != "" {
		return cfg, g, reason, msg, err
	}
	cfg, err = target.ConfigForTarget(obj, prof, rules)
	if err != nil {
		return cfg, g, "", "", fmt.Errorf("compile target %s/%s: %w", obj.Namespace, obj.Name, err)
	}
	cfg.Access = g.access
	return cfg, g, "", "", nil
}

// admit is the start every reconciler that writes a config entry shares:
// it fetches obj; when the object is gone it deletes the entry; when it is
// being deleted it deletes the entry and then releases the finalizer;
// otherwise it makes sure the finalizer holds the object. ok is false when
// the reconcile ends here.
func (d *Deps) admit(ctx context.Context, name types.NamespacedName, obj ctrlObject, key configRef) (ok bool, err error) {
	if err := d.Client.Get(ctx, name, obj); err != nil {
		if apierrors.IsNotFound(err) {
			return false, d.deleteConfig(ctx, key)
		}
		return false, err
	}
	if obj.GetDeletionTimestamp() != nil {
		return false, d.release(ctx, obj, key)
	}
	if !controllerutil.AddFinalizer(obj, Finalizer) {
		return true, nil
	}
	if err := d.Client.Update(ctx, obj); err != nil {
		return false, fmt.Errorf("add finalizer to %T %s: %w", obj, obj.GetName(), err)
	}
	return true, nil
}

// release deletes the config entry, then removes the finalizer, so the
// object never disappears while its entry is still readable.
func (d *Deps) release(ctx context.Context, obj ctrlObject, key configRef) error {
	if err := d.deleteConfig(ctx, key); err != nil {
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

// degraded sets Degraded=True with reason, or False when reason is empty.
func degraded(obj ctrlObject, reason, msg string) {
	if reason == "" {
		set(obj, v1alpha1.ConditionDegraded, metav1.ConditionFalse, v1alpha1.ReasonSucceeded, "working")
		return
	}
	set(obj, v1alpha1.ConditionDegraded, metav1.ConditionTrue, reason, msg)
}
