package policy

import (
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// The flags of control that set the per-namespace quotas (Quotas).
const (
	FlagMaxInventories = "max-inventories-per-namespace"
	FlagMaxBindings    = "max-bindings-per-namespace"
	FlagMaxReplays     = "max-replays-per-namespace"
)

// Quotas are the operator's limits on what the tenants of a namespace may
// ask for (control's flags); a namespace's KollectScope may only tighten
// them. A zero field sets no limit.
type Quotas struct {
	// Inventories is the most KollectInventories a namespace may hold.
	Inventories int64
	// Bindings is the most sink bindings (sink refs of every family) a
	// namespace's inventories may hold together.
	Bindings int64
	// Replays is the most KollectReplays of a namespace in flight (neither
	// Succeeded nor Failed) at once.
	Replays int64
	// History caps every inventory's spec.history, and the aggregator's
	// defaults below it.
	History busv1.HistoryLimits
}

// Limit is one per-namespace count limit in effect and who set it.
type Limit struct {
	// Max is the limit; zero when neither the operator nor the Scope sets
	// one.
	Max int64
	// By names who set it, for messages: the operator's flag or the
	// Scope's field.
	By string
}

// Allows reports whether a usage of n stays within the limit.
func (l Limit) Allows(n int64) bool { return l.Max <= 0 || n <= l.Max }

// String is the limit and who set it: "50 (--max-inventories-per-namespace)".
func (l Limit) String() string { return fmt.Sprintf("%d (%s)", l.Max, l.By) }

// InventoryLimit is the limit of KollectInventories per namespace under
// the Scope's quotas (nil when the namespace has no Scope; scope names it,
// such as "KollectScope team").
func (q Quotas) InventoryLimit(s *v1alpha1.ScopeQuotas, scope string) Limit {
	return tighten(q.Inventories, FlagMaxInventories, scopeCount(s, func(s *v1alpha1.ScopeQuotas) *int32 { return s.MaxInventories }), "maxInventories", scope)
}

// BindingLimit is the limit of sink bindings per namespace under the
// Scope's quotas.
func (q Quotas) BindingLimit(s *v1alpha1.ScopeQuotas, scope string) Limit {
	return tighten(q.Bindings, FlagMaxBindings, scopeCount(s, func(s *v1alpha1.ScopeQuotas) *int32 { return s.MaxBindings }), "maxBindings", scope)
}

// ReplayLimit is the limit of KollectReplays in flight per namespace under
// the Scope's quotas.
func (q Quotas) ReplayLimit(s *v1alpha1.ScopeQuotas, scope string) Limit {
	return tighten(q.Replays, FlagMaxReplays, scopeCount(s, func(s *v1alpha1.ScopeQuotas) *int32 { return s.MaxReplays }), "maxReplays", scope)
}

// NamespaceQuota is the Scope's tightening of the aggregator's
// per-namespace bus quota, written into every inventory's config of the
// namespace: the aggregator enforces the lower of each field and its own
// flag. Zero fields (no Scope, or a field unset) keep the operator's.
func NamespaceQuota(s *v1alpha1.ScopeQuotas) busv1.NamespaceQuota {
	var out busv1.NamespaceQuota
	if s == nil {
		return out
	}
	if s.MaxNamespaceBusBytes != nil {
		out.BusBytes = s.MaxNamespaceBusBytes.Value()
	}
	if s.MaxNamespaceRevisions != nil {
		out.HistoryRevisions = *s.MaxNamespaceRevisions
	}
	return out
}

func scopeCount(s *v1alpha1.ScopeQuotas, field func(*v1alpha1.ScopeQuotas) *int32) int64 {
	if s == nil || field(s) == nil {
		return 0
	}
	return int64(*field(s))
}

// tighten is the lower of the operator's limit (its flag) and the Scope's
// field, each zero when unset.
func tighten(op int64, flag string, sc int64, field, scope string) Limit {
	n, by := lower(op, "--"+flag, sc, field+" of "+scope)
	return Limit{Max: n, By: by}
}
