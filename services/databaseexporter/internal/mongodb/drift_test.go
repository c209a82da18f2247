package mongodb

import (
	"context"
	"strings"
	"testing"

	"go.mongodb.org/mongo-driver/v2/bson"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// driftOf runs s's drift check of snap as the runtime does, with the header
// only.
func driftOf(t *testing.T, s *Sink, snap sink.Snapshot) string {
	t.Helper()
	h := snap
	h.Envelope.Items = nil
	h.Load = func(context.Context) (busv1.Envelope, error) {
		t.Error("the drift check loaded the snapshot")
		return snap.Envelope, nil
	}
	reason, err := s.Drift(context.Background(), h)
	if err != nil {
		t.Fatalf("drift check: %v", err)
	}
	return reason
}

func TestDriftIsDetectedAndRepaired(t *testing.T) {
	srv := testenv.StartMongo(t)
	webScope := bson.D{{Key: "cluster", Value: "x"}, {Key: "inventoryNamespace", Value: "team-a"}, {Key: "inventoryName", Value: "web"}}
	for _, c := range []struct {
		name   string
		damage func(t *testing.T, r reader)
		reason string
	}{
		{"documents deleted by hand", func(t *testing.T, r reader) {
			if _, err := r.data.DeleteOne(t.Context(), webScope); err != nil {
				t.Fatal(err)
			}
		}, "2 documents, want 3"},
		{"the state document deleted by hand", func(t *testing.T, r reader) {
			if _, err := r.state.DeleteMany(t.Context(), bson.D{}); err != nil {
				t.Fatal(err)
			}
		}, "state document missing"},
		{"documents and the state deleted by hand", func(t *testing.T, r reader) {
			if _, err := r.data.DeleteMany(t.Context(), webScope); err != nil {
				t.Fatal(err)
			}
			if _, err := r.state.DeleteMany(t.Context(), bson.D{}); err != nil {
				t.Fatal(err)
			}
		}, "state document missing"},
		{"the state set back by hand", func(t *testing.T, r reader) {
			if _, err := r.state.UpdateMany(t.Context(), bson.D{}, bson.D{{Key: "$set", Value: bson.D{{Key: "revision", Value: int64(0)}}}}); err != nil {
				t.Fatal(err)
			}
		}, "state document holds revision 0"},
	} {
		t.Run(c.name, func(t *testing.T) {
			db := freshDatabase()
			s := newSink(t, testBackend(), srv.URI, "x", db, "rows")
			r := newReader(t, srv.URI, db, "rows")
			snap := envelope(t, "x", inv, 1, podRow("a", nil), podRow("b", nil), podRow("c", map[string]any{"v": 1.0}))
			if err := s.Write(t.Context(), snap); err != nil {
				t.Fatalf("write: %v", err)
			}
			if got := driftOf(t, s, snap); got != "" {
				t.Fatalf("drift %q before any damage, want none", got)
			}
			c.damage(t, r)
			if got := driftOf(t, s, snap); !strings.HasPrefix(got, c.reason) {
				t.Fatalf("drift %q, want %q", got, c.reason)
			}
			snap.Repair = true
			if err := s.Write(t.Context(), snap); err != nil {
				t.Fatalf("repair: %v", err)
			}
			snap.Repair = false
			expect(t, r, "x", snap)
			if got := driftOf(t, s, snap); got != "" {
				t.Fatalf("drift %q after the repair, want none", got)
			}
		})
	}
}

func TestAnOlderWriterFinishingLastIsFenced(t *testing.T) {
	srv := testenv.StartMongo(t)
	a, b, c := podRow("a", map[string]any{"v": 1.0}), podRow("b", nil), podRow("c", nil)
	for _, tc := range []struct {
		name string
		// hook installs, on the slow writer, where the fast writer runs.
		hook func(slow *Sink, newer func() error)
	}{
		{"the newer write lands between the older one's pending mark and its data", func(slow *Sink, newer func() error) {
			slow.beforeData = newer
		}},
		{"the newer write lands between the older one's data and its state", func(slow *Sink, newer func() error) {
			slow.afterData = newer
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			db := freshDatabase()
			slow := newSink(t, testBackend(), srv.URI, "x", db, "rows")
			fast := newSink(t, testBackend(), srv.URI, "x", db, "rows")
			r := newReader(t, srv.URI, db, "rows")
			ctx := t.Context()
			if err := slow.Write(ctx, envelope(t, "x", inv, 1, a)); err != nil {
				t.Fatalf("first write: %v", err)
			}
			older, newer := envelope(t, "x", inv, 2, a, b), envelope(t, "x", inv, 3, c)
			ran := false
			tc.hook(slow, func() error { ran = true; return fast.Write(ctx, newer) })
			if err := slow.Write(ctx, older); err != nil {
				t.Fatalf("older write: %v", err)
			}
			slow.beforeData, slow.afterData = nil, nil
			if !ran {
				t.Fatal("the newer write did not run inside the older one")
			}
			got, _, err := r.Read(ctx, "x", inv)
			if err != nil {
				t.Fatal(err)
			}
			if got.Revision != 3 || got.Checksum != newer.Envelope.Checksum {
				t.Fatalf("state holds revision %d checksum %s, want the newer write's 3 %s", got.Revision, got.Checksum, newer.Envelope.Checksum)
			}
			if reason := driftOf(t, fast, newer); reason == "" {
				t.Fatal("no drift after an overtaken write: the documents it may have changed are claimed by the newer state")
			}
			newer.Repair = true
			if err := fast.Write(ctx, newer); err != nil {
				t.Fatalf("repair: %v", err)
			}
			newer.Repair = false
			expect(t, r, "x", newer)
			if reason := driftOf(t, fast, newer); reason != "" {
				t.Fatalf("drift %q after the repair, want none", reason)
			}
		})
	}
}
