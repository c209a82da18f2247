package policy

import (
	"cmp"
	"fmt"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// The flags of control that cap every inventory's spec.history (Quotas.History).
const (
	FlagHistoryMaxRevisions = "history-max-revisions"
	FlagHistoryMaxAge       = "history-max-age"
	FlagHistoryMaxBytes     = "history-max-bytes"
)

// HistoryLimits converts an inventory's spec.history or a Scope's
// maxHistory into the limits the aggregator applies; nil sets none.
func HistoryLimits(h *v1alpha1.History) busv1.HistoryLimits {
	var out busv1.HistoryLimits
	if h == nil {
		return out
	}
	if h.Revisions != nil {
		out.Revisions = int64(*h.Revisions)
	}
	if h.MaxAge != nil {
		out.MaxAge = busv1.Duration{Duration: h.MaxAge.Duration}
	}
	if h.MaxBytes != nil {
		out.MaxBytes = h.MaxBytes.Value()
	}
	return out
}

// HistoryCeiling is the cap on each spec.history field of an inventory and
// who set it.
type HistoryCeiling struct {
	// Cap is the lower of the operator's cap and the Scope's maxHistory,
	// field by field (a zero field sets no cap): the aggregator lowers the
	// effective retention, asked or default, to it
	// (busv1.InventoryConfig.HistoryCap).
	Cap busv1.HistoryLimits
	// revisionsBy, maxAgeBy and maxBytesBy name who set each field of Cap,
	// for messages.
	revisionsBy, maxAgeBy, maxBytesBy string
}

// HistoryCeiling returns the cap on spec.history under the operator's cap
// (q.History) and the Scope's maxHistory (rules of scope, a name such as
// "KollectScope team"; nil rules when there is no Scope). The Scope only
// tightens: a field above the operator's keeps the operator's, and on a tie
// the Scope is named.
func (q Quotas) HistoryCeiling(rules *v1alpha1.ScopeRules, scope string) HistoryCeiling {
	var s busv1.HistoryLimits
	if rules != nil {
		s = HistoryLimits(rules.MaxHistory)
	}
	var c HistoryCeiling
	scopeBy := "of " + scope
	c.Cap.Revisions, c.revisionsBy = lower(q.History.Revisions, operatorBy(FlagHistoryMaxRevisions), s.Revisions, scopeBy)
	c.Cap.MaxAge.Duration, c.maxAgeBy = lower(q.History.MaxAge.Duration, operatorBy(FlagHistoryMaxAge), s.MaxAge.Duration, scopeBy)
	c.Cap.MaxBytes, c.maxBytesBy = lower(q.History.MaxBytes, operatorBy(FlagHistoryMaxBytes), s.MaxBytes, scopeBy)
	return c
}

// Over returns one line per spec.history field above the cap, naming the
// field, the value asked, the cap and who set it; nil when none is. A field
// not asked (zero: the aggregator's default) is never above: the
// aggregator lowers the default to the cap.
func (c HistoryCeiling) Over(asked busv1.HistoryLimits) []string {
	var out []string
	if above(asked.Revisions, c.Cap.Revisions) {
		out = append(out, fmt.Sprintf("spec.history.revisions: %d is above the cap %d %s", asked.Revisions, c.Cap.Revisions, c.revisionsBy))
	}
	if above(asked.MaxAge.Duration, c.Cap.MaxAge.Duration) {
		out = append(out, fmt.Sprintf("spec.history.maxAge: %s is above the cap %s %s", asked.MaxAge.Duration, c.Cap.MaxAge.Duration, c.maxAgeBy))
	}
	if above(asked.MaxBytes, c.Cap.MaxBytes) {
		out = append(out, fmt.Sprintf("spec.history.maxBytes: %d is above the cap %d %s", asked.MaxBytes, c.Cap.MaxBytes, c.maxBytesBy))
	}
	return out
}

func operatorBy(flag string) string { return "of the operator (--" + flag + ")" }

// lower returns the lower of the operator's limit op and the Scope's sc,
// each zero when unset, with who set it; the Scope on a tie.
func lower[T int64 | time.Duration](op T, opBy string, sc T, scBy string) (T, string) {
	switch {
	case sc > 0 && (op <= 0 || sc <= op):
		return sc, scBy
	case op > 0:
		return op, opBy
	}
	return 0, ""
}

func above[T cmp.Ordered](asked, limit T) bool {
	var zero T
	return limit > zero && asked > limit
}
