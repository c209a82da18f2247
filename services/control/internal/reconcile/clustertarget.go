package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
	"kollect.dev/kollect/services/control/internal/policy"
)

// ClusterTargetReconciler compiles KollectClusterTargets into config
// entries, bounded by the KollectClusterScope.
type ClusterTargetReconciler struct {
	*Deps
	// Extract are the extraction options the collector compiles with.
	Extract extract.Options
}

// Reconcile runs the same steps as TargetReconciler, with the Profile named
// by namespace and the ClusterScope as ceiling.
func (r *ClusterTargetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	key := ref(busv1.KindClusterTarget, "", req.Name)
	obj := &v1alpha1.KollectClusterTarget{}
	if ok, err := r.admit(ctx, req.NamespacedName, obj, key); !ok {
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	if obj.Spec.Suspend {
		notReady(obj, v1alpha1.ReasonSuspended, "spec.suspend is true; rows are kept")
		return res, r.suspendConfig(ctx, key, obj.Generation)
	}
	cfg, reason, msg, err := r.compile(ctx, obj)
	if err != nil {
		return res, err
	}
	if reason != "" {
		notReady(obj, reason, msg)
		return res, r.deleteConfig(ctx, key)
	}
	if err := r.putConfig(ctx, key, cfg); err != nil {
		return res, err
	}
	foldTarget(obj, busv1.KindClusterTarget, &obj.Status, r.Reports)
	return res, nil
}

func (r *ClusterTargetReconciler) compile(ctx context.Context, obj *v1alpha1.KollectClusterTarget) (busv1.TargetConfig, string, string, error) {
	var cfg busv1.TargetConfig
	scope, err := r.HonouredCluster(ctx)
	if err != nil {
		return cfg, "", "", err
	}
	var rules *v1alpha1.ScopeRules
	pref := obj.Spec.ProfileRef
	if scope != nil {
		rules = &scope.Spec.ScopeRules
		if a := scope.Spec.AllowedStaticRefNamespaces; a != nil && !slices.Contains(a, pref.Namespace) {
			return cfg, v1alpha1.ReasonScopeStaticRefDenied, fmt.Sprintf(
				"spec.profileRef.namespace: KollectClusterScope %s does not allow references to namespace %s", scope.Name, pref.Namespace), nil
		}
	}
	prof := &v1alpha1.KollectProfile{}
	name := types.NamespacedName{Namespace: pref.Namespace, Name: pref.Name}
	if err := r.Client.Get(ctx, name, prof); err != nil {
		if apierrors.IsNotFound(err) {
			return cfg, v1alpha1.ReasonProfileNotFound, fmt.Sprintf("spec.profileRef: KollectProfile %s not found", name), nil
		}
		return cfg, "", "", fmt.Errorf("get profile %s: %w", name, err)
	}
	if reason, msg := validateProfile(prof, r.Extract); reason != "" {
		return cfg, reason, fmt.Sprintf("KollectProfile %s: %s", name, msg), nil
	}
	gvk := prof.Spec.TargetGVK
	if !policy.AllowsGVK(rules, gvk) {
		return cfg, v1alpha1.ReasonScopeGVKDenied, fmt.Sprintf("KollectClusterScope %s does not allow kind %s/%s %s", scope.Name, gvk.Group, gvk.Version, gvk.Kind), nil
	}
	if msg := policy.NamespaceViolation(rules, obj.Spec.IncludedNamespaces); msg != "" {
		return cfg, v1alpha1.ReasonScopeNamespaceDenied, fmt.Sprintf("%s (KollectClusterScope %s)", msg, scope.Name), nil
	}
	if _, errs := selection.Compile(selection.ForClusterTarget(obj, schemaGVK(gvk))); len(errs) > 0 {
		return cfg, v1alpha1.ReasonInvalidSpec, oneLine(errs[0].Error()), nil
	}
	cfg, err = target.ConfigForClusterTarget(obj, prof, rules)
	if err != nil {
		return cfg, "", "", fmt.Errorf("compile cluster target %s: %w", obj.Name, err)
	}
	return cfg, "", "", nil
}
