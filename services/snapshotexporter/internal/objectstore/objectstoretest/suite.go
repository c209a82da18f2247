package objectstoretest

import (
	"bytes"
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// Fixture is one empty bucket of a backend for the drift, fencing and limit
// suite (RunState): the backend's Bucket and Layout the sinks under test
// are built on, and a Reader and a plain put through the peer's own client.
type Fixture struct {
	Bucket objectstore.Bucket
	Layout objectstore.Layout
	Reader Reader
	// Put stores body at key with the peer's client (a hand edit).
	Put func(ctx context.Context, key string, body []byte) error
}

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// RunState runs the object-store cases about the sink's own state against
// the buckets newFixture returns for a format (json, ndjson or parquet,
// without compression): drift found after each kind of hand damage and
// repaired, two writers in the wrong order, and the state read limit.
func RunState(t *testing.T, newFixture func(t *testing.T, format string) Fixture) {
	t.Helper()
	for _, format := range []string{"json", "ndjson", "parquet"} {
		t.Run(format, func(t *testing.T) {
			t.Run("a state object deleted by hand is drift, and a repair restores it", func(t *testing.T) {
				checkDamage(t, newFixture(t, format), func(ctx context.Context, f Fixture, s sink.Snapshot) error {
					return f.Reader.Delete(ctx, f.Layout.StateKey(&s.Envelope))
				}, "state object")
			})
			t.Run("a data object rewritten by hand with the same size is drift, and a repair restores it", func(t *testing.T) {
				checkDamage(t, newFixture(t, format), func(ctx context.Context, f Fixture, s sink.Snapshot) error {
					key := dataKey(f.Layout, format, &s.Envelope)
					body, _, err := f.Reader.Get(ctx, key)
					if err != nil {
						return err
					}
					return f.Put(ctx, key, bytes.Repeat([]byte{'x'}, len(body)))
				}, "rewritten")
			})
			t.Run("an older writer that read the state before a newer write gives way", func(t *testing.T) {
				checkOrder(t, newFixture(t, format), "read")
			})
			t.Run("an older writer whose data put preceded a newer write gives way", func(t *testing.T) {
				checkOrder(t, newFixture(t, format), "put")
			})
		})
	}
	t.Run("a state object over StateLimit is refused with a permanent error naming it", func(t *testing.T) {
		f := newFixture(t, "json")
		s := Snap(t, 1, 2)
		key := f.Layout.StateKey(&s.Envelope)
		if err := f.Put(context.Background(), key, bytes.Repeat([]byte{' '}, objectstore.StateLimit+1)); err != nil {
			t.Fatal(err)
		}
		err := objectstore.NewSink(f.Bucket, f.Layout, "test", nil).Write(context.Background(), s)
		if !sink.IsPermanent(err) || !errors.Is(err, objectstore.ErrTooLarge) || !strings.Contains(err.Error(), key) {
			t.Fatalf("write returned %v, want a permanent error wrapping ErrTooLarge naming %s", err, key)
		}
	})
}

// Snap is a stamped snapshot of n rows at revision.
func Snap(t testing.TB, revision uint64, n int) sink.Snapshot {
	t.Helper()
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a",
			Name: "pod-" + string(rune('a'+i)), UID: "uid-" + string(rune('a'+i)), Version: "v1", Kind: "Pod",
			Attributes: map[string]any{"revision": float64(revision)}}
	}
	env, err := snapshot.Envelope(inv, revision, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, time.Now())}
}

// Pods is a stamped snapshot of n Pod rows at revision whose attributes do
// not depend on the revision (image nginx, restarts i): two revisions of
// the same n hold the same rows. The backends' own tests write it; past 26
// rows the names repeat and the UIDs stay distinct.
func Pods(t testing.TB, revision uint64, n int) sink.Snapshot {
	t.Helper()
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a",
			Name: "pod-" + string(rune('a'+i%26)), UID: "uid-" + strings.Repeat("x", i%3) + string(rune('a'+i%26)),
			Version: "v1", Kind: "Pod", Attributes: map[string]any{"image": "nginx", "restarts": float64(i)}}
	}
	env, err := snapshot.Envelope(inv, revision, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, time.Now())}
}

// Write writes s with k and fails the test on an error.
func Write(t testing.TB, k sink.Sink, s sink.Snapshot) {
	t.Helper()
	if err := k.Write(context.Background(), s); err != nil {
		t.Fatalf("write revision %d: %v", s.Envelope.Revision, err)
	}
}

func dataKey(l objectstore.Layout, format string, env *busv1.Envelope) string {
	if format == "parquet" {
		return l.ParquetKey(env)
	}
	return l.DocumentKey(env)
}

// checkDamage writes a snapshot, damages it, and expects Drift to name the
// damage (a reason containing want), a plain write of the same snapshot to
// change nothing when the state still names it, and a repair to restore
// it.
func checkDamage(t *testing.T, f Fixture, damage func(context.Context, Fixture, sink.Snapshot) error, want string) {
	ctx := context.Background()
	k := objectstore.NewSink(f.Bucket, f.Layout, "test", nil)
	s := Snap(t, 3, 4)
	Write(t, k, s)
	if err := damage(ctx, f, s); err != nil {
		t.Fatalf("damage: %v", err)
	}
	reason, err := k.Drift(ctx, s)
	if err != nil || !strings.Contains(reason, want) {
		t.Fatalf("drift after the damage = %q, %v; want a reason containing %q", reason, err, want)
	}
	if !strings.HasPrefix(reason, "state object") {
		// The state names s: a write without Repair writes nothing.
		Write(t, k, s)
		if again, _ := k.Drift(ctx, s); again != reason {
			t.Fatalf("a write without Repair changed the drift from %q to %q: it should write nothing", reason, again)
		}
	}
	s.Repair = true
	Write(t, k, s)
	if reason, err := k.Drift(ctx, s); err != nil || reason != "" {
		t.Fatalf("drift after the repair = %q, %v; want none", reason, err)
	}
	expect(t, f, s)
}

// checkOrder runs an older writer (revision 2) that is overtaken by a
// newer one (revision 3) right after it read the state (at "read") or
// right after its data put (at "put"): the older write must return without
// error and leave revision 3 in place, data and state.
func checkOrder(t *testing.T, f Fixture, at string) {
	ctx := context.Background()
	newer := objectstore.NewSink(f.Bucket, f.Layout, "newer", nil)
	Write(t, newer, Snap(t, 1, 2))
	s3 := Snap(t, 3, 3)
	hb := &hookBucket{Bucket: f.Bucket, at: at, run: func() { Write(t, newer, s3) }}
	older := objectstore.NewSink(hb, f.Layout, "older", nil)
	if err := older.Write(ctx, Snap(t, 2, 5)); err != nil {
		t.Fatalf("the older write returned %v, want nil (it gives way)", err)
	}
	if !hb.done {
		t.Fatalf("the newer writer never ran (hook at %s)", at)
	}
	expect(t, f, s3)
	if reason, err := newer.Drift(ctx, s3); err != nil || reason != "" {
		t.Fatalf("drift of revision 3 = %q, %v; want none", reason, err)
	}
}

// hookBucket runs run once: after the first Get (the state read) when at
// is "read", after the first Put when at is "put".
type hookBucket struct {
	objectstore.Bucket
	at   string
	run  func()
	done bool
}

func (h *hookBucket) Get(ctx context.Context, key string, limit int64) ([]byte, objectstore.Info, bool, error) {
	body, info, found, err := h.Bucket.Get(ctx, key, limit)
	h.fire("read")
	return body, info, found, err
}

func (h *hookBucket) Put(ctx context.Context, key string, body []byte, ct, ce string, c objectstore.Condition) (objectstore.Info, error) {
	info, err := h.Bucket.Put(ctx, key, body, ct, ce, c)
	h.fire("put")
	return info, err
}

func (h *hookBucket) fire(at string) {
	if h.at == at && !h.done {
		h.done = true
		h.run()
	}
}

func expect(t *testing.T, f Fixture, s sink.Snapshot) {
	t.Helper()
	got, found, err := f.Reader.Read(context.Background(), sinktest.Cluster, inv)
	if err != nil || !found {
		t.Fatalf("read back: found %t, %v", found, err)
	}
	want := sinktest.Projection{Revision: s.Envelope.Revision, Checksum: s.Envelope.Checksum, Rows: s.Envelope.Items}
	if d := cmp.Diff(want, got, cmpopts.EquateEmpty()); d != "" {
		t.Fatalf("projection (-want +got):\n%s", d)
	}
}
