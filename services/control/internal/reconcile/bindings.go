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

// resolveBindings resolves each wanted sink: missing sinks, sinks the Scope
// does not allow and sinks whose secretRef names another namespace (unless
// the operator allows it) are refused (with a reason on their state), the rest
// become bindings with their effective interval raised to the floor.
func (d *Deps) resolveBindings(ctx context.Context, ws []wanted, rules *v1alpha1.ScopeRules, scopeName string) ([]busv1.Binding, []bindingState, error) {
	var binds []busv1.Binding
	var states []bindingState
	for _, w := range ws {
		st := bindingState{sink: w.sink, name: w.name}
		if !policy.AllowsSink(sinkAllowList(rules, w.sink.Family), w.sink.Name) {
			st.reason = v1alpha1.ReasonScopeSinkDenied
			st.message = fmt.Sprintf("Scope %s does not allow %s sink %s", scopeName, w.sink.Family, w.sink.Name)
			states = append(states, st)
			continue
		}
		v, err := d.getSink(ctx, w.sink.Family, w.sink.Namespace, w.sink.Name)
		if apierrors.IsNotFound(err) {
			st.reason = v1alpha1.ReasonSinkNotFound
			st.message = fmt.Sprintf("%s %s/%s not found", w.sink.Family.SinkKind(), w.sink.Namespace, w.sink.Name)
			states = append(states, st)
			continue
		}
		if err != nil {
			return nil, nil, fmt.Errorf("get sink %s: %w", w.name, err)
		}
		if msg := policy.SecretRefsViolation(w.sink.Namespace, v.secretRefs, d.Policy.AllowCrossNamespaceSecretRefs); msg != "" {
			st.reason, st.message = v1alpha1.ReasonSecretRefDenied, fmt.Sprintf("%s %s/%s: %s", w.sink.Family.SinkKind(), w.sink.Namespace, w.sink.Name, msg)
			states = append(states, st)
			continue
		}
		b := busv1.Binding{SinkRef: w.sink, SinkGeneration: v.obj.GetGeneration()}
		b.EffectiveInterval.Duration = effective(w, v.common.ExportMinInterval, policy.Floor(rules))
		if m := firstInt(w.maxBytes, w.invBytes); m != nil {
			b.MaxExportBytes = *m
		}
		binds = append(binds, b)
		states = append(states, st)
	}
	return binds, states, nil
}

// effective is binding > sink > inventory > 30s, raised to the floor.
func effective(w wanted, sink *metav1.Duration, min time.Duration) time.Duration {
	d := defaultInterval
	for _, c := range []*metav1.Duration{w.interval, sink, w.invDefault} {
		if c != nil {
			d = c.Duration
			break
		}
	}
	return max(d, min)
}

func firstInt(vs ...*int64) *int64 {
	for _, v := range vs {
		if v != nil {
			return v
		}
	}
	return nil
}
