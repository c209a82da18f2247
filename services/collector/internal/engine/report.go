package engine

import (
	"slices"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/target"
)

// Report returns the current status report of a Target; ok is false when
// the Target no longer exists.
func (e *Engine) Report(ref bus.ConfigRef) (report busv1.StatusReport, ok bool) {
	ts := e.target(ref)
	if ts == nil {
		return busv1.StatusReport{}, false
	}
	ts.mu.RLock()
	cfg, compiled, invalid, owned := ts.cfg, ts.compiled, ts.invalid, ts.owned
	ts.mu.RUnlock()
	if !owned {
		return busv1.StatusReport{}, false // its shard's holder reports it
	}
	st := &busv1.TargetStatus{
		CollectedCount:    e.cfg.Rows.Count(ref.Namespace, ref.Name),
		MatchedNamespaces: e.matchedNamespaces(compiled),
	}
	failures, last := ts.failures()
	st.ExtractionFailures, st.LastExtractionError = int64(failures), last
	switch {
	case invalid != nil:
		st.Outcome = busv1.Outcome{Reason: v1alpha1.ReasonInvalidSpec, Message: invalid.Error()}
	case cfg.Suspend:
		st.Outcome = busv1.Outcome{Reason: v1alpha1.ReasonSuspended, Message: "spec.suspend is true: collection is stopped and rows are kept"}
	default:
		s := e.cfg.Informers.State(compiled.GVK)
		st.Outcome = busv1.Outcome{Reason: s.Reason, Message: s.Message}
	}
	return busv1.StatusReport{
		Service: busv1.ServiceCollector, Kind: cfg.Kind, Namespace: cfg.Namespace, Name: cfg.Name,
		Generation: cfg.Generation, ObservedAt: time.Now().UTC(), Target: st,
	}, true
}

// matchedNamespaces lists the namespaces a Target selects, sorted; none for
// cluster-scoped kinds.
func (e *Engine) matchedNamespaces(c *target.Compiled) []string {
	out := []string{}
	if c == nil {
		return out
	}
	if namespaced, known := e.cfg.Informers.Namespaced(c.GVK); known && !namespaced {
		return out
	}
	for _, ns := range e.cfg.Informers.Namespaces() {
		if c.Namespace(ns) {
			out = append(out, ns.Name)
		}
	}
	slices.Sort(out)
	return out
}
