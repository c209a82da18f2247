package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// inventoryKind is the kind of the inventory an event names.
func inventoryKind(inv busv1.NamespacedName) busv1.Kind {
	if inv.Namespace == "" {
		return busv1.KindClusterInventory
	}
	return busv1.KindInventory
}

// report publishes the binding's export status for ev's inventory and
// generation. Status is best effort: a lost report is replaced by the next.
func (rt *runtime) report(ctx context.Context, ev *busv1.SnapshotEvent, es busv1.ExportStatus) {
	r := busv1.StatusReport{Service: rt.cfg.Family.Exporter(), Kind: inventoryKind(ev.Inventory),
		Namespace: ev.Inventory.Namespace, Name: ev.Inventory.Name, Generation: ev.Generation,
		ObservedAt: time.Now().UTC(), Export: &es}
	rt.publish(ctx, bus.StatusSubjectFor(r), r)
}

// failed reports a failed attempt: in status, and for a permanent failure as
// a dead letter, logged once here where it is handled.
func (rt *runtime) failed(ctx context.Context, w *worker, j *job, err error, permanent bool) {
	out := busv1.Outcome{Reason: v1alpha1.ReasonExportFailed, Message: err.Error()}
	switch {
	case errors.Is(err, errConfigPending):
		out.Reason = v1alpha1.ReasonSinkConfigPending
	case permanent:
		out.Reason = failureReason(err, v1alpha1.ReasonExportRejected)
	}
	es := w.status
	es.Sink, es.OK, es.Permanent, es.Outcome = w.ref, false, permanent, out
	rt.report(ctx, j.d.ev, es)
	rt.log.Error(err, "export failed", app.KeyInventory, w.inv.String(), app.KeySink, w.ref.BindingName(),
		app.KeyRevision, j.revision(), "permanent", permanent)
	if !permanent {
		return
	}
	ref := w.ref
	dl := deadLetter(j.d.msg, out)
	dl.Sink, dl.Revision = &ref, j.revision()
	rt.publish(ctx, bus.DeadLetterSubject(rt.cfg.Family, w.inv), dl)
}

// terminate ends a message no binding can ever use and records it as a dead
// letter of inv (when the subject names one).
func (rt *runtime) terminate(m jetstream.Msg, inv busv1.NamespacedName, err error) {
	rt.log.Error(err, "terminating a snapshot event", app.KeySubject, m.Subject())
	_ = m.Term()
	if inv.Name != "" {
		dl := deadLetter(m, busv1.Outcome{Reason: v1alpha1.ReasonEventUndecodable, Message: err.Error()})
		rt.publish(rt.ctx, bus.DeadLetterSubject(rt.cfg.Family, inv), dl)
	}
}

// deadLetter records m with out.
func deadLetter(m jetstream.Msg, out busv1.Outcome) busv1.DeadLetter {
	dl := busv1.DeadLetter{Subject: m.Subject(), Headers: m.Headers(), Outcome: out, Time: time.Now().UTC()}
	if meta, err := m.Metadata(); err == nil {
		dl.StreamSequence = meta.Sequence.Stream
	}
	return dl
}

// publish stores v on subject through JetStream.
func (rt *runtime) publish(ctx context.Context, subject string, v any) {
	b, err := json.Marshal(v)
	if err == nil {
		_, err = rt.js.Publish(ctx, subject, b)
	}
	if err != nil && ctx.Err() == nil {
		rt.log.Error(err, "publish failed", app.KeySubject, subject)
	}
}
