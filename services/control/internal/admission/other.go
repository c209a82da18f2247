package admission

import (
	"context"
	"fmt"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

func (v *Validator) clusterTarget(ctx context.Context, t *v1alpha1.KollectClusterTarget) (string, error) {
	scope, err := v.Scopes.HonouredCluster(ctx)
	if err != nil || scope == nil {
		return "", err
	}
	if a := scope.Spec.AllowedStaticRefNamespaces; a != nil && !slices.Contains(a, t.Spec.ProfileRef.Namespace) {
		return fmt.Sprintf("spec.profileRef.namespace: KollectClusterScope %s does not allow references to namespace %s",
			scope.Name, t.Spec.ProfileRef.Namespace), nil
	}
	var prof v1alpha1.KollectProfile
	if err := v.Reader.Get(ctx, client.ObjectKey{Namespace: t.Spec.ProfileRef.Namespace, Name: t.Spec.ProfileRef.Name}, &prof); err == nil {
		if !policy.AllowsGVK(&scope.Spec.ScopeRules, prof.Spec.TargetGVK) {
			return fmt.Sprintf("spec.profileRef: KollectClusterScope %s does not allow kind %s", scope.Name, prof.Spec.TargetGVK.Kind), nil
		}
	}
	return policy.NamespaceViolation(&scope.Spec.ScopeRules, t.Spec.IncludedNamespaces), nil
}

// inventory checks binding shape, the Scope's sink allow lists and its
// interval floor, the history cap (the Scope's and the operator's) and the
// namespace's quotas.
func (v *Validator) inventory(ctx context.Context, req admission.Request, inv *v1alpha1.KollectInventory) (string, error) {
	if msg := bindingsBelowMinimum(v, inv.Spec.ExportMinInterval, []string{"snapshotSinkRefs", "databaseSinkRefs", "eventSinkRefs"},
		[][]v1alpha1.SinkBinding{inv.Spec.SnapshotSinkRefs, inv.Spec.DatabaseSinkRefs, inv.Spec.EventSinkRefs},
		func(b v1alpha1.SinkBinding) *metav1.Duration { return b.ExportMinInterval }); msg != "" {
		return msg, nil
	}
	scope, err := v.Scopes.Honoured(ctx, inv.Namespace)
	if err != nil {
		return "", err
	}
	h := honouredOf(scope)
	rules := h.rules
	floor := policy.Floor(rules)
	if below(inv.Spec.ExportMinInterval, floor) {
		return fmt.Sprintf("spec.exportMinInterval: below the KollectScope %s floor %s", scope.Name, floor), nil
	}
	if over := v.Quotas.HistoryCeiling(rules, h.name).Over(policy.HistoryLimits(inv.Spec.History)); over != nil {
		return over[0], nil
	}
	lists := []struct {
		field string
		refs  []v1alpha1.SinkBinding
		allow []string
	}{
		{"snapshotSinkRefs", inv.Spec.SnapshotSinkRefs, nil},
		{"databaseSinkRefs", inv.Spec.DatabaseSinkRefs, nil},
		{"eventSinkRefs", inv.Spec.EventSinkRefs, nil},
	}
	if rules != nil {
		allow := rules.SinkAllowLists()
		lists[0].allow, lists[1].allow, lists[2].allow = allow.Snapshot, allow.Database, allow.Event
	}
	for _, l := range lists {
		for i, b := range l.refs {
			if err := b.DecodeError(); err != nil {
				return fmt.Sprintf("spec.%s[%d]: %v", l.field, i, err), nil
			}
			if rules != nil && !policy.AllowsSink(l.allow, b.Name) {
				return fmt.Sprintf("spec.%s[%d]: KollectScope %s does not allow sink %s", l.field, i, scope.Name, b.Name), nil
			}
			if below(b.ExportMinInterval, floor) {
				return fmt.Sprintf("spec.%s[%d].exportMinInterval: below the KollectScope %s floor %s", l.field, i, scope.Name, floor), nil
			}
		}
	}
	return v.inventoryQuota(ctx, req, inv, h)
}

func below(d *metav1.Duration, floor time.Duration) bool {
	return d != nil && d.Duration < floor
}

// sinkSpec is what admission needs of a sink spec of any family.
type sinkSpec interface {
	SinkType() string
	Endpoints() []string
	Validate() field.ErrorList
}

// sink checks the spec (Validate, the same checks the reconciler and the
// exporter run), the Secret reference, the options, the Scope's interval
// floor and the endpoint policy.
func (v *Validator) sink(ctx context.Context, req admission.Request) (string, error) {
	var spec sinkSpec
	var common *v1alpha1.SinkCommon
	var refs []v1alpha1.SecretNamespace
	var chooser client.Object
	var err error
	switch req.Kind.Kind {
	case "KollectSnapshotSink":
		_, err = decodeAnd(req, func(s *v1alpha1.KollectSnapshotSink) (string, error) {
			refs, chooser = s.Spec.SecretNamespaces(), s.DeepCopy()
			s.Normalize()
			spec, common = &s.Spec, &s.Spec.SinkCommon
			return "", nil
		})
	case "KollectDatabaseSink":
		_, err = decodeAnd(req, func(s *v1alpha1.KollectDatabaseSink) (string, error) {
			refs, chooser = s.Spec.SecretNamespaces(), s.DeepCopy()
			s.Normalize()
			spec, common = &s.Spec, &s.Spec.SinkCommon
			return "", nil
		})
	default:
		_, err = decodeAnd(req, func(s *v1alpha1.KollectEventSink) (string, error) {
			refs, chooser = s.Spec.SecretNamespaces(), s.DeepCopy()
			spec, common = &s.Spec, &s.Spec.SinkCommon
			return "", nil
		})
	}
	if err != nil {
		return "", err
	}
	if errs := spec.Validate(); len(errs) > 0 {
		return errs.ToAggregate().Error(), nil
	}
	if msg := policy.SecretRefsViolation(req.Namespace, refs, v.AllowCrossNamespaceSecretRefs); msg != "" {
		return msg, nil
	}
	if msg, err := v.identityChoice(ctx, req, chooser); msg != "" || err != nil {
		return msg, err
	}
	if msg := policy.OptionsViolation(spec.SinkType(), common.Options); msg != "" {
		return msg, nil
	}
	if msg := v.belowMinimum("spec.exportMinInterval", common.ExportMinInterval); msg != "" {
		return msg, nil
	}
	scope, err := v.Scopes.Honoured(ctx, req.Namespace)
	if err != nil {
		return "", err
	}
	if scope != nil && below(common.ExportMinInterval, policy.Floor(&scope.Spec.ScopeRules)) {
		return fmt.Sprintf("spec.exportMinInterval: below the KollectScope %s floor %s", scope.Name, policy.Floor(&scope.Spec.ScopeRules)), nil
	}
	return policy.EndpointViolation(v.Egress, spec.Endpoints()), nil
}
