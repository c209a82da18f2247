package reconcile

import (
	"context"
	"fmt"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

// defaultInterval is the inventory exportMinInterval when none is set.
const defaultInterval = 30 * time.Second

// wanted is one sink ref of an inventory spec, of any family, with the
// inventory's defaults.
type wanted struct {
	sink       busv1.SinkRef
	name       string // status.sinkExports name
	interval   *metav1.Duration
	maxBytes   *int64
	invDefault *metav1.Duration
	invBytes   *int64
}

// bindings are an inventory's sink refs resolved.
type bindings struct {
	// binds are the bindings the aggregator exports to.
	binds []busv1.Binding
	// states are every wanted sink in spec order, refused ones with a reason.
	states []bindingState
	// raised says, one line per binding, which interval the Scope's floor
	// or the operator's (Policy.MinExportInterval) raised.
	raised []string
}

// resolveBindings resolves each wanted sink: missing sinks, sinks the Scope
// does not allow and sinks whose secretRef names another namespace (unless
// the operator allows it) are refused (with a reason on their state), the rest
// become bindings with their effective interval raised to the floor: the
// Scope's (which raises 0 too), then the operator's (which leaves 0, on
// change only, alone).
func (d *Deps) resolveBindings(ctx context.Context, ws []wanted, b bound) (bindings, error) {
	var out bindings
	floor := policy.Floor(b.rules)
	for _, w := range ws {
		st := bindingState{sink: w.sink, name: w.name}
		if !policy.AllowsSink(sinkAllowList(b.rules, w.sink.Family), w.sink.Name) {
			st.reason = v1alpha1.ReasonScopeSinkDenied
			st.message = fmt.Sprintf("Scope %s does not allow %s sink %s", b.name, w.sink.Family, w.sink.Name)
			out.states = append(out.states, st)
			continue
		}
		v, err := d.getSink(ctx, w.sink.Family, w.sink.Namespace, w.sink.Name)
		if apierrors.IsNotFound(err) {
			st.reason = v1alpha1.ReasonSinkNotFound
			st.message = fmt.Sprintf("%s %s/%s not found", w.sink.Family.SinkKind(), w.sink.Namespace, w.sink.Name)
			out.states = append(out.states, st)
			continue
		}
		if err != nil {
			return out, fmt.Errorf("get sink %s: %w", w.name, err)
		}
		if msg := policy.SecretRefsViolation(w.sink.Namespace, v.secretRefs, d.Policy.AllowCrossNamespaceSecretRefs); msg != "" {
			st.reason, st.message = v1alpha1.ReasonSecretRefDenied, fmt.Sprintf("%s %s/%s: %s", w.sink.Family.SinkKind(), w.sink.Namespace, w.sink.Name, msg)
			out.states = append(out.states, st)
			continue
		}
		bind := busv1.Binding{SinkRef: w.sink, SinkGeneration: v.obj.GetGeneration()}
		asked, set := interval(w, v.common.ExportMinInterval)
		eff, by := max(asked, floor), b.name
		if eff > 0 && eff < d.Policy.MinExportInterval {
			eff, by = d.Policy.MinExportInterval, "the operator's minimum (--min-export-interval)"
		}
		bind.EffectiveInterval.Duration = eff
		if set && eff != asked {
			out.raised = append(out.raised, fmt.Sprintf("%s: exportMinInterval %s raised to %s by %s", w.name, asked, eff, by))
		}
		if m := firstInt(w.maxBytes, w.invBytes); m != nil {
			bind.MaxExportBytes = *m
		}
		out.binds = append(out.binds, bind)
		out.states = append(out.states, st)
	}
	return out, nil
}

// interval is the binding's interval as asked (binding > sink > inventory)
// and true, or 30s and false when none is set. The floors raise it.
func interval(w wanted, sink *metav1.Duration) (time.Duration, bool) {
	for _, c := range []*metav1.Duration{w.interval, sink, w.invDefault} {
		if c != nil {
			return c.Duration, true
		}
	}
	return defaultInterval, false
}

func firstInt(vs ...*int64) *int64 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
