package admission

import (
	"context"
	"fmt"
	"slices"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

// clusterInventory checks binding shape, the history cap (the operator's
// and the ClusterScope's) and, under a ClusterScope, the namespaces it
// references, its sink allow lists and its interval floor.
func (v *Validator) clusterInventory(ctx context.Context, inv *v1alpha1.KollectClusterInventory) (string, error) {
	lists := []struct {
		field string
		refs  []v1alpha1.ClusterSinkBinding
	}{
		{"snapshotSinkRefs", inv.Spec.SnapshotSinkRefs},
		{"databaseSinkRefs", inv.Spec.DatabaseSinkRefs},
		{"eventSinkRefs", inv.Spec.EventSinkRefs},
	}
	for _, l := range lists {
		for i, b := range l.refs {
			if err := b.DecodeError(); err != nil {
				return fmt.Sprintf("spec.%s[%d]: %v", l.field, i, err), nil
			}
		}
	}
	if msg := bindingsBelowMinimum(v, inv.Spec.ExportMinInterval, []string{lists[0].field, lists[1].field, lists[2].field},
		[][]v1alpha1.ClusterSinkBinding{lists[0].refs, lists[1].refs, lists[2].refs},
		func(b v1alpha1.ClusterSinkBinding) *metav1.Duration { return b.ExportMinInterval }); msg != "" {
		return msg, nil
	}
	scope, err := v.Scopes.HonouredCluster(ctx)
	if err != nil {
		return "", err
	}
	var rules *v1alpha1.ScopeRules
	var name string
	if scope != nil {
		rules, name = &scope.Spec.ScopeRules, "KollectClusterScope "+scope.Name
	}
	if over := v.Quotas.HistoryCeiling(rules, name).Over(policy.HistoryLimits(inv.Spec.History)); over != nil {
		return over[0], nil
	}
	if scope == nil {
		return "", nil
	}
	eff := rules.SinkAllowLists()
	allow := [][]string{eff.Snapshot, eff.Database, eff.Event}
	floor := policy.Floor(rules)
	if below(inv.Spec.ExportMinInterval, floor) {
		return fmt.Sprintf("spec.exportMinInterval: below the KollectClusterScope %s floor %s", scope.Name, floor), nil
	}
	static := scope.Spec.AllowedStaticRefNamespaces
	for li, l := range lists {
		for i, b := range l.refs {
			ns := b.Namespace
			if ns == "" {
				ns = inv.Spec.SinkNamespace
			}
			switch {
			case static != nil && !slices.Contains(static, ns):
				return fmt.Sprintf("spec.%s[%d]: KollectClusterScope %s does not allow references to namespace %s", l.field, i, scope.Name, ns), nil
			case !policy.AllowsSink(allow[li], b.Name):
				return fmt.Sprintf("spec.%s[%d]: KollectClusterScope %s does not allow sink %s", l.field, i, scope.Name, b.Name), nil
			case below(b.ExportMinInterval, floor):
				return fmt.Sprintf("spec.%s[%d].exportMinInterval: below the KollectClusterScope %s floor %s", l.field, i, scope.Name, floor), nil
			}
		}
	}
	return "", nil
}
