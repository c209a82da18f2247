package reconcile

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/handler"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/pkg/target"
)

// TargetReconciler compiles KollectTargets into config entries.
type TargetReconciler struct {
	*Deps
	// Extract are the extraction options the collector compiles with.
	Extract extract.Options
}

// Reconcile runs the steps: finalizer, suspend, resolve the Profile, apply
// the Scope, review the ServiceAccount's access, compile, write the entry,
// fold collector reports, bound the selection by the Scope.
func (r *TargetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	key := ref(busv1.KindTarget, req.Namespace, req.Name)
	var t compiledTarget
	var g grant
	return run(ctx, r.Deps, req, &v1alpha1.KollectTarget{},
		entry[*v1alpha1.KollectTarget]{ref: &key, finalizer: true, suspended: func(o *v1alpha1.KollectTarget) string {
			return suspended(o.Spec.Suspend, "rows are kept")
		}},
		func(ctx context.Context, obj *v1alpha1.KollectTarget, res *ctrl.Result) (err error) {
			// Access is checked again periodically: RBAC can change without
			// an event control sees (a ClusterRole edited, an aggregated rule).
			// The periodic re-check waits behind changes (a revoked binding,
			// a new Target) in the priority queue.
			res.RequeueAfter, res.Priority = r.Policy.AccessRecheck, new(handler.LowPriority)
			if err := r.requesterAllows(ctx, obj); err != nil {
				return err
			}
			if t, err = r.compile(ctx, obj); err != nil {
				return err
			}
			g, err = r.grantFor(ctx, obj, t)
			if g.unserved {
				res.RequeueAfter = unservedRecheck
			}
			t.cfg.Access = g.access
			if err != nil {
				return err
			}
			return r.requesterReach(ctx, obj, t)
		},
		func(ctx context.Context, _ *v1alpha1.KollectTarget, _ *ctrl.Result) error {
			return r.putConfig(ctx, key, t.cfg)
		},
		func(ctx context.Context, obj *v1alpha1.KollectTarget, _ *ctrl.Result) error {
			foldTarget(obj, busv1.KindTarget, &obj.Status, r.Reports)
			if len(g.denied) > 0 {
				degraded(obj, v1alpha1.ReasonAccessDenied, deniedMessage(g.access.ServiceAccount, g.resource, g.denied))
			}
			return r.boundedByScope(ctx, obj, t)
		})
}

// compile resolves the Profile and the namespace's Scope and compiles the
// entry (without its Access, which grantFor adds).
func (r *TargetReconciler) compile(ctx context.Context, obj *v1alpha1.KollectTarget) (compiledTarget, error) {
	if err := obj.Spec.ProfileRef.DecodeError(); err != nil {
		return compiledTarget{}, v1alpha1.Reasonf(v1alpha1.ReasonInvalidSpec, "spec.profileRef: %v", err)
	}
	b, err := r.boundFor(ctx, obj.Namespace)
	if err != nil {
		return compiledTarget{}, err
	}
	return r.compileTarget(ctx, targetInput{
		profile: types.NamespacedName{Namespace: obj.Namespace, Name: obj.Spec.ProfileRef.Name}, bound: b,
		included: obj.Spec.IncludedNamespaces, extract: r.Extract,
		selection: func(gvk schema.GroupVersionKind) selection.Spec { return selection.ForTarget(obj, gvk) },
		config: func(p *v1alpha1.KollectProfile) (busv1.TargetConfig, error) {
			cfg, err := target.ConfigForTarget(obj, p, b.rules)
			if err != nil {
				return cfg, fmt.Errorf("compile target %s/%s: %w", obj.Namespace, obj.Name, err)
			}
			return cfg, nil
		},
	})
}

// suspended is the Suspended message of an object whose spec.suspend is
// on, saying what is kept; "" when it is off.
func suspended(on bool, kept string) string {
	if !on {
		return ""
	}
	return "spec.suspend is true; " + kept
}
