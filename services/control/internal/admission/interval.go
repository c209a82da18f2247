package admission

import (
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// belowMinimum returns a refusal naming field when d asks for periodic
// re-exports (non-zero) more often than the operator's floor
// (Validator.MinExportInterval), or "". Reconcile and the aggregator raise
// such an interval anyway; this is the early, friendly error.
func (v *Validator) belowMinimum(field string, d *metav1.Duration) string {
	floor := v.MinExportInterval
	if d == nil || d.Duration <= 0 || d.Duration >= floor {
		return ""
	}
	return fmt.Sprintf("%s: %s is below the minimum export interval %s set by the operator (--min-export-interval); "+
		"use at least %s, or 0 to export on change only", field, d.Duration, floor, floor)
}

// bindingsBelowMinimum is belowMinimum for an inventory's own interval and
// each binding's, the first refusal or "".
func bindingsBelowMinimum[B any](v *Validator, spec *metav1.Duration, lists []string, refs [][]B, interval func(B) *metav1.Duration) string {
	if msg := v.belowMinimum("spec.exportMinInterval", spec); msg != "" {
		return msg
	}
	for li, l := range refs {
		for i, b := range l {
			if msg := v.belowMinimum(fmt.Sprintf("spec.%s[%d].exportMinInterval", lists[li], i), interval(b)); msg != "" {
				return msg
			}
		}
	}
	return ""
}
