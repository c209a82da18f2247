package reconcile

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
)

// ClusterTargetReconciler compiles KollectClusterTargets into config
// entries, bounded by the KollectClusterScope.
type ClusterTargetReconciler struct {
	*Deps
	// Extract are the extraction options the collector compiles with.
	Extract extract.Options
}

// Reconcile runs the same steps as TargetReconciler, with the Profile named
// by namespace and the ClusterScope as ceiling. A ClusterTarget has no
// ServiceAccount: the collector's own access applies.
func (r *ClusterTargetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	key := ref(busv1.KindClusterTarget, "", req.Name)
	var t compiledTarget
	return run(ctx, r.Deps, req, &v1alpha1.KollectClusterTarget{},
		entry[*v1alpha1.KollectClusterTarget]{ref: &key, finalizer: true, suspended: func(o *v1alpha1.KollectClusterTarget) string {
			return suspended(o.Spec.Suspend, "rows are kept")
		}},
		func(ctx context.Context, obj *v1alpha1.KollectClusterTarget, _ *ctrl.Result) (err error) {
			t, err = r.compile(ctx, obj)
			return err
		},
		func(ctx context.Context, _ *v1alpha1.KollectClusterTarget, _ *ctrl.Result) error {
			return r.putConfig(ctx, key, t.cfg)
		},
		func(ctx context.Context, obj *v1alpha1.KollectClusterTarget, _ *ctrl.Result) error {
			foldTarget(obj, busv1.KindClusterTarget, &obj.Status, r.Reports)
			return r.boundedByScope(ctx, obj, t)
		})
}

// compile checks the Profile reference against the ClusterScope and
// compiles the entry.
func (r *ClusterTargetReconciler) compile(ctx context.Context, obj *v1alpha1.KollectClusterTarget) (compiledTarget, error) {
	b, err := r.boundFor(ctx, "")
	if err != nil {
		return compiledTarget{}, err
	}
	pref := obj.Spec.ProfileRef
	if !b.allowsStaticRef(pref.Namespace) {
		return compiledTarget{}, v1alpha1.Reasonf(v1alpha1.ReasonScopeStaticRefDenied,
			"spec.profileRef.namespace: %s does not allow references to namespace %s", b.name, pref.Namespace)
	}
	return r.compileTarget(ctx, targetInput{
		profile: types.NamespacedName{Namespace: pref.Namespace, Name: pref.Name}, bound: b,
		included: obj.Spec.IncludedNamespaces, extract: r.Extract,
		selection: func(gvk schema.GroupVersionKind) selection.Spec { return selection.ForClusterTarget(obj, gvk) },
		config: func(p *v1alpha1.KollectProfile) (busv1.TargetConfig, error) {
			cfg, err := target.ConfigForClusterTarget(obj, p, b.rules)
			if err != nil {
				return cfg, fmt.Errorf("compile cluster target %s: %w", obj.Name, err)
			}
			return cfg, nil
		},
	})
}
