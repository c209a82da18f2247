package reconcile

import (
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// announceRepairs records a Warning Event DriftRepaired on an inventory for
// each exporter report of a drift repair (busv1.ExportStatus.Repaired): a
// sink was changed behind Kollect's back and written again in full. Each
// repair is announced once, keyed by binding and export time; after a
// control restart the latest repair of a binding may be announced again.
func (d *Deps) announceRepairs(obj client.Object, kind busv1.Kind) {
	if d.Recorder == nil {
		return
	}
	for _, f := range busv1.Families() {
		for _, r := range current(d.Reports, obj, kind, f.Exporter()) {
			e := r.Export
			if e == nil || e.Repaired == "" {
				continue
			}
			key := string(obj.GetUID()) + "/repaired/" + e.Sink.BindingName()
			at := e.LastExportTime.UTC().String()
			if last, ok := d.announced.Load(key); ok && last == at {
				continue
			}
			d.announced.Store(key, at)
			d.Recorder.Eventf(obj, nil, corev1.EventTypeWarning, v1alpha1.ReasonDriftRepaired, "Repair",
				"sink %s no longer held revision %d (%s): written again in full", e.Sink.BindingName(), e.Revision, e.Repaired)
		}
	}
}
