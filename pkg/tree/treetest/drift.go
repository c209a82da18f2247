package treetest

import (
	"context"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// DriftSink is a tree sink under a drift test: it writes and checks drift.
type DriftSink interface {
	sink.Sink
	sink.DriftChecker
}

// Counted returns snap with its header only and a Load that counts the
// times the snapshot is loaded.
func Counted(snap sink.Snapshot, loads *atomic.Int64) sink.Snapshot {
	full := snap.Envelope
	snap.Envelope.Items = nil
	snap.Load = func(context.Context) (busv1.Envelope, error) {
		loads.Add(1)
		return full, nil
	}
	return snap
}

// Drift returns the drift s reports for snap, failing the test on an
// error.
func Drift(t testing.TB, s sink.DriftChecker, snap sink.Snapshot) string {
	t.Helper()
	reason, err := s.Drift(context.Background(), snap)
	if err != nil {
		t.Fatalf("drift: %v", err)
	}
	return reason
}

// CheckDamage runs one hand damage of the branch s wrote first to: before
// it there is no drift, after it Drift names it (a reason containing
// want), a Repair write restores the files, after which neither s nor a
// fresh sink (fresh, made then, without s's mirror) sees drift and r reads
// first back.
func CheckDamage(t *testing.T, s DriftSink, r sinktest.Reader, first sink.Snapshot, damage func(), want string,
	fresh func() sink.DriftChecker) {
	t.Helper()
	if reason := Drift(t, s, first); reason != "" {
		t.Fatalf("drift before the damage: %q", reason)
	}
	damage()
	if reason := Drift(t, s, first); !strings.Contains(reason, want) {
		t.Fatalf("drift after the damage = %q, want a reason containing %q", reason, want)
	}
	repair := first
	repair.Repair = true
	if err := s.Write(context.Background(), repair); err != nil {
		t.Fatalf("write revision %d: %v", repair.Envelope.Revision, err)
	}
	if reason := Drift(t, s, first); reason != "" {
		t.Fatalf("drift after the repair: %q", reason)
	}
	if reason := Drift(t, fresh(), first); reason != "" {
		t.Fatalf("drift seen by a fresh sink after the repair: %q", reason)
	}
	got, found, err := r.Read(context.Background(), first.Envelope.Cluster, first.Envelope.Inventory)
	if err != nil || !found {
		t.Fatalf("read back after the repair: found %t, %v", found, err)
	}
	projection := sinktest.Projection{Revision: first.Envelope.Revision, Checksum: first.Envelope.Checksum, Rows: first.Envelope.Items}
	if d := cmp.Diff(projection, got, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("after the repair the branch holds (-want +got):\n%s", d)
	}
}
