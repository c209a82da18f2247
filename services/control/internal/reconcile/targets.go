package reconcile

import (
	"context"
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/control/internal/policy"
)

// targetInput is what a Target of either kind compiles from, once its
// kind's own step resolved where the Profile is and which Scope bounds it.
type targetInput struct {
	profile  types.NamespacedName
	bound    bound
	included []string // spec.includedNamespaces
	extract  extract.Options
	// selection is the Target's selection for the Profile's kind.
	selection func(schema.GroupVersionKind) selection.Spec
	// config builds the entry from the Profile.
	config func(*v1alpha1.KollectProfile) (busv1.TargetConfig, error)
}

// compiledTarget is a Target compiled into its entry.
type compiledTarget struct {
	cfg      busv1.TargetConfig
	gvk      schema.GroupVersionKind
	selector *selection.Selector
	bound    bound
}

// compileTarget is the compile path both Target kinds share: the Profile
// resolves and compiles, its kind and the named namespaces are within the
// Scope, the selection compiles. Why the Target cannot run is a
// *v1alpha1.ReasonError.
func (d *Deps) compileTarget(ctx context.Context, in targetInput) (compiledTarget, error) {
	out := compiledTarget{bound: in.bound}
	prof := &v1alpha1.KollectProfile{}
	if err := d.Client.Get(ctx, in.profile, prof); err != nil {
		if apierrors.IsNotFound(err) {
			return out, v1alpha1.Reasonf(v1alpha1.ReasonProfileNotFound, "spec.profileRef: KollectProfile %s not found", in.profile)
		}
		return out, fmt.Errorf("get profile %s: %w", in.profile, err)
	}
	if err := validateProfile(prof, in.extract); err != nil {
		return out, &v1alpha1.ReasonError{Reason: v1alpha1.ReasonOf(err), Err: fmt.Errorf("KollectProfile %s: %w", in.profile, err)}
	}
	gvk, rules := prof.Spec.TargetGVK, in.bound.rules
	if !policy.AllowsGVK(rules, gvk) {
		return out, v1alpha1.Reasonf(v1alpha1.ReasonScopeGVKDenied, "%s does not allow kind %s/%s %s", in.bound.name, gvk.Group, gvk.Version, gvk.Kind)
	}
	if msg := policy.NamespaceViolation(rules, in.included); msg != "" {
		return out, v1alpha1.Reasonf(v1alpha1.ReasonScopeNamespaceDenied, "%s (%s)", msg, in.bound.name)
	}
	out.gvk = schema.GroupVersionKind{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind}
	sel, errs := selection.Compile(in.selection(out.gvk))
	if len(errs) > 0 {
		return out, &v1alpha1.ReasonError{Reason: v1alpha1.ReasonInvalidSpec, Err: errors.New(oneLine(errs[0].Error()))}
	}
	out.selector = sel
	cfg, err := in.config(prof)
	out.cfg = cfg
	return out, err
}

// boundedByScope degrades a target whose label or all-namespaces selection
// reaches existing namespaces its Scope does not allow: the collector
// collects only within the Scope, and the status says so. A Degraded
// condition already set (a failing extraction, denied access) is kept.
func (d *Deps) boundedByScope(ctx context.Context, obj statusObject, t compiledTarget) error {
	if t.bound.rules == nil || meta.IsStatusConditionTrue(obj.GetConditions(), v1alpha1.ConditionDegraded) {
		return nil
	}
	var list corev1.NamespaceList
	if err := d.Client.List(ctx, &list); err != nil {
		return fmt.Errorf("list namespaces: %w", err)
	}
	for i := range list.Items {
		ns := &list.Items[i]
		if !policy.AllowsNamespace(t.bound.rules, ns.Name) &&
			t.selector.Namespace(selection.Namespace{Name: ns.Name, Labels: ns.Labels, Annotations: ns.Annotations}) {
			degraded(obj, v1alpha1.ReasonScopeNamespaceDenied, fmt.Sprintf(
				"the selection reaches namespaces %s does not allow; only allowed namespaces are collected", t.bound.name))
			return nil
		}
	}
	return nil
}
