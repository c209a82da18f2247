package sinktest

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Damager is implemented by the Readers of sinks that check drift
// (sink.DriftChecker): Damage changes what the sink stores for one
// inventory behind the sink's back, as a user with access to the external
// system would (delete a row, a file or an object), through the peer's own
// client.
type Damager interface {
	Damage(ctx context.Context, cluster string, inv busv1.NamespacedName) error
}

// checkDrift damages a written snapshot by hand: Drift must name the
// damage, a Repair write of the same snapshot must restore it, and Drift
// must then find nothing. It runs for sinks that check drift whose Reader
// can damage them (a Damager).
func checkDrift(t *testing.T, h *harness) {
	dc, ok := h.sink.(sink.DriftChecker)
	if !ok {
		t.Skip("the sink does not check drift")
	}
	dm, ok := h.reader.(Damager)
	if !ok {
		t.Skipf("the sink checks drift but its Reader %T cannot damage it: implement sinktest.Damager to run this case", h.reader)
	}
	ctx := context.Background()
	s := h.snap(1, row("a", 1), row("b", 2), row("c", 3))
	h.write(s)
	drift := func(what string) string {
		t.Helper()
		reason, err := dc.Drift(ctx, headerOnly(s))
		if err != nil {
			t.Fatalf("drift %s: %v", what, err)
		}
		return reason
	}
	if reason := drift("after the write"); reason != "" {
		t.Fatalf("drift right after the write reports %q, want none", reason)
	}
	if err := dm.Damage(ctx, Cluster, inv); err != nil {
		t.Fatalf("damage the sink: %v", err)
	}
	if reason := drift("after the damage"); reason == "" {
		t.Fatal("drift after the damage reports none")
	}
	repair := s
	repair.Repair = true
	h.write(repair)
	if reason := drift("after the repair"); reason != "" {
		t.Fatalf("drift after the repair reports %q, want none", reason)
	}
	h.expect(s)
}
