package policy

import (
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
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

// HistoryCap returns the Scope's maxHistory, zero when unset.
func HistoryCap(rules *v1alpha1.ScopeRules) busv1.HistoryLimits {
	if rules == nil {
		return busv1.HistoryLimits{}
	}
	return HistoryLimits(rules.MaxHistory)
}

// HistoryOverCap returns one line per spec.history field above the cap,
// naming the field, the value asked and the cap; nil when none is.
func HistoryOverCap(asked, limit busv1.HistoryLimits) []string {
	var out []string
	if limit.Revisions > 0 && asked.Revisions > limit.Revisions {
		out = append(out, fmt.Sprintf("spec.history.revisions: %d is above the cap %d", asked.Revisions, limit.Revisions))
	}
	if limit.MaxAge.Duration > 0 && asked.MaxAge.Duration > limit.MaxAge.Duration {
		out = append(out, fmt.Sprintf("spec.history.maxAge: %s is above the cap %s", asked.MaxAge.Duration, limit.MaxAge.Duration))
	}
	if limit.MaxBytes > 0 && asked.MaxBytes > limit.MaxBytes {
		out = append(out, fmt.Sprintf("spec.history.maxBytes: %d is above the cap %d", asked.MaxBytes, limit.MaxBytes))
	}
	return out
}
