package reconcile

import (
	"cmp"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/reports"
)

// current returns the reports about obj from service that are for obj's
// current generation or newer; reports for older generations describe a
// spec that no longer exists and are ignored.
func current(rep Reporter, obj client.Object, kind busv1.Kind, service busv1.Service) []busv1.StatusReport {
	var out []busv1.StatusReport
	for _, r := range rep.Reports(reports.ObjectKey{Kind: kind, Namespace: obj.GetNamespace(), Name: obj.GetName()}) {
		if r.Service == service && r.Generation >= obj.GetGeneration() {
			out = append(out, r)
		}
	}
	return out
}

// foldTarget folds the collector's latest report into a target's status.
func foldTarget(obj statusObject, kind busv1.Kind, st *v1alpha1.TargetStatus, rep Reporter) {
	var t *busv1.TargetStatus
	for _, r := range current(rep, obj, kind, busv1.ServiceCollector) {
		if r.Target != nil {
			t = r.Target
		}
	}
	if t == nil {
		set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing,
			"config written; waiting for the collector's first report")
		return
	}
	st.CollectedCount = int64(t.CollectedCount)
	st.ExtractionFailures = t.ExtractionFailures
	st.LastExtractionError = t.LastExtractionError
	st.MatchedNamespaces = t.MatchedNamespaces
	ready(obj, fmt.Sprintf("collecting %d objects from %d namespaces", t.CollectedCount, len(t.MatchedNamespaces)))
	switch {
	case t.Reason != "":
		degraded(obj, t.Reason, t.Message)
	case t.ExtractionFailures > 0:
		degraded(obj, v1alpha1.ReasonExtractionFailed, t.LastExtractionError)
	default:
		degraded(obj, "", "")
	}
}

// bindingState is one binding's outcome before folding exporter reports: a
// binding control refused (SinkNotFound, ScopeSinkDenied) has a reason.
type bindingState struct {
	sink    busv1.SinkRef
	name    string
	reason  string
	message string
}

// foldInventory folds the aggregator's and exporters' latest reports into an
// inventory's status. bindings are every binding in spec order, refused
// ones included.
func foldInventory(obj statusObject, kind busv1.Kind, st *v1alpha1.InventoryStatus, bindings []bindingState, rep Reporter) *busv1.InventoryStatus {
	var agg *busv1.InventoryStatus
	for _, r := range current(rep, obj, kind, busv1.ServiceAggregator) {
		if r.Inventory != nil {
			agg = r.Inventory
		}
	}
	if agg != nil {
		st.ItemCount = int64(agg.ItemCount)
		if agg.History != nil {
			st.History = historyStatus(agg.History)
		}
	}
	exports := map[busv1.SinkRef]*busv1.ExportStatus{}
	for _, f := range busv1.Families() {
		for _, r := range current(rep, obj, kind, f.Exporter()) {
			if r.Export != nil {
				exports[r.Export.Sink] = r.Export
			}
		}
	}
	old := st.SinkExports
	st.SinkExports = nil
	synced, worst, worstMsg := metav1.ConditionTrue, "", ""
	for _, b := range bindings {
		e := foldBinding(obj, b, exports[b.sink], st, old)
		c := *meta.FindStatusCondition(e.Conditions, v1alpha1.ConditionSynced)
		if c.Status == metav1.ConditionFalse {
			synced, worst, worstMsg = metav1.ConditionFalse, c.Reason, e.Name+": "+c.Message
		} else if c.Status == metav1.ConditionUnknown && synced == metav1.ConditionTrue {
			synced = metav1.ConditionUnknown
		}
		st.SinkExports = append(st.SinkExports, e)
	}
	if len(bindings) == 0 {
		// No sink: synced once the snapshot exists (its history can be
		// read), not before the first one is published.
		if agg == nil || agg.Revision == 0 {
			set(obj, v1alpha1.ConditionSynced, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "waiting for the first snapshot (no sink is bound)")
		} else {
			set(obj, v1alpha1.ConditionSynced, metav1.ConditionTrue, v1alpha1.ReasonExported,
				fmt.Sprintf("revision %d is published; no sink is bound", agg.Revision))
		}
	} else {
		setSynced(obj, synced, worst, worstMsg)
	}
	switch {
	case worst != "":
		degraded(obj, worst, worstMsg)
	case agg != nil && agg.Reason != "":
		degraded(obj, agg.Reason, agg.Message)
	default:
		degraded(obj, "", "")
	}
	return agg
}

func setSynced(obj statusObject, s metav1.ConditionStatus, reason, msg string) {
	switch s {
	case metav1.ConditionTrue:
		set(obj, v1alpha1.ConditionSynced, s, v1alpha1.ReasonExported, "every bound sink holds the latest snapshot")
	case metav1.ConditionUnknown:
		set(obj, v1alpha1.ConditionSynced, s, v1alpha1.ReasonProgressing, "waiting for the first export to every sink")
	default:
		set(obj, v1alpha1.ConditionSynced, s, reason, msg)
	}
}

func foldBinding(obj statusObject, b bindingState, e *busv1.ExportStatus, st *v1alpha1.InventoryStatus, old []v1alpha1.SinkExportStatus) v1alpha1.SinkExportStatus {
	out := v1alpha1.SinkExportStatus{Name: b.name}
	for _, o := range old {
		if o.Name == b.name {
			out.Conditions = o.Conditions
		}
	}
	c := metav1.Condition{Type: v1alpha1.ConditionSynced, ObservedGeneration: obj.GetGeneration()}
	switch {
	case b.reason != "":
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, b.reason, b.message
	case e == nil:
		c.Status, c.Reason, c.Message = metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "not exported yet"
	case e.OK:
		c.Status, c.Reason, c.Message = metav1.ConditionTrue, v1alpha1.ReasonExported, fmt.Sprintf("revision %d exported", e.Revision)
	default:
		// The exporter's reason says why (ExportRejected, a Secret that
		// does not resolve, a pending sink config); ExportFailed when it
		// gives none.
		c.Status, c.Reason, c.Message = metav1.ConditionFalse, cmp.Or(e.Reason, v1alpha1.ReasonExportFailed), e.Message
	}
	if e != nil && !e.LastExportTime.IsZero() {
		t := metav1.NewTime(e.LastExportTime)
		out.LastExportTime, out.LastChecksum, out.LastRevision = &t, e.Checksum, int64(e.Revision) //nolint:gosec // G115: revisions count exports, far below 2^63
		if st.LastExportTime == nil || st.LastExportTime.Before(&t) {
			st.LastExportTime = &t
		}
	}
	meta.SetStatusCondition(&out.Conditions, c)
	return out
}

// historyStatus is status.history from the aggregator's report of the
// history it kept at its last trim.
func historyStatus(h *busv1.HistoryStatus) *v1alpha1.HistoryStatus {
	out := &v1alpha1.HistoryStatus{Revisions: int64(h.Revisions), OldestRevision: int64(h.OldestRevision), Bytes: h.Bytes} //nolint:gosec // G115: a revision fits an int64
	if !h.OldestTime.IsZero() {
		t := metav1.NewTime(h.OldestTime)
		out.OldestTime = &t
	}
	return out
}
