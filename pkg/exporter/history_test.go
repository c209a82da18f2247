package exporter_test

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/sink"
)

// needing builds the backend's sinks as sinks that need deltas (as the
// Kafka sink in perRow mode does) when needs is set.
type needing struct {
	*memBackend
	needs bool
}

func (n needing) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	s, err := n.memBackend.New(ctx, cfg, creds)
	if err != nil || !n.needs {
		return s, err
	}
	return needer{s.(*counting)}, nil
}

type needer struct{ *counting }

func (needer) NeedsDelta() bool { return true }

// startNeeding runs one exporter runtime over n, reading through c's
// Loader, and returns the function that stops it.
func (e *env) startNeeding(c *chunked, n needing) func() {
	cfg := exporter.DefaultConfig(busv1.FamilySnapshot)
	cfg.Credentials, cfg.RetryInitial, cfg.RetryMax, cfg.BreakerCooldown = creds, 5*time.Millisecond, 50*time.Millisecond, 50*time.Millisecond
	cfg.Loader = c.l
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- exporter.Run(ctx, e.n.JS, cfg, n) }()
	var once sync.Once
	stop := func() {
		once.Do(func() {
			cancel()
			if err := <-done; err != nil {
				e.t.Errorf("exporter: %v", err)
			}
		})
	}
	e.t.Cleanup(stop)
	return stop
}

// purge deletes revision rev's event from the inventory's snapshot history,
// as the stream's limits expire old events.
func (e *env) purge(rev uint64) {
	e.t.Helper()
	ctx := context.Background()
	evs, err := history.Events(ctx, e.n.JS, inv)
	if err != nil {
		e.t.Fatal(err)
	}
	st, err := e.n.JS.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		e.t.Fatal(err)
	}
	for _, s := range evs {
		if s.Event.Revision == rev {
			if err := st.DeleteMsg(ctx, s.Sequence); err != nil {
				e.t.Fatal(err)
			}
		}
	}
}

func TestAfterARestartASinkThatNeedsDeltasGetsOneRebuiltFromTheHistory(t *testing.T) {
	base := manyRows(40, "1")
	next := without(set(set(base, vrow("r-000003", "2")), vrow("new", "1")), "r-000007")
	for _, tc := range []struct {
		name    string
		needs   bool
		purge   bool // the state's revision expired from the history
		deleted bool // revision 2 deletes the inventory
		// want is the delta WriteDelta gets for revision 2; nil: the
		// snapshot is written whole through Write.
		want *busv1.Delta
	}{
		{name: "the state's revision in the history gives the delta with its deletes", needs: true,
			want: &busv1.Delta{BaseRevision: 1, Upserts: []busv1.Row{vrow("new", "1"), vrow("r-000003", "2")},
				Deletes: []busv1.RowKey{row("r-000007").Key()}}},
		{name: "a deletion deletes every row of the state", needs: true, deleted: true,
			want: &busv1.Delta{BaseRevision: 1, Upserts: []busv1.Row{}, Deletes: keys(base)}},
		{name: "the state's revision expired from the history gives the whole snapshot", needs: true, purge: true},
		{name: "a sink that does not need deltas gets the whole snapshot"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e := newEnv(t, "good")
			c := newChunked(t, e, "good")
			n := needing{memBackend: e.b, needs: tc.needs}
			stop := e.startNeeding(c, n)
			first := c.publish(t, 1, base, true)
			waitFor(t, "revision 1 in the sink", func() bool { return e.stored("good") == 1 })
			stop()
			if tc.purge {
				e.purge(1)
			}
			// Revision 2 carries no delta (as after an aggregator restart,
			// or a chain broken while the exporter was down).
			ev := c.event(t, 2, next, true)
			if tc.deleted {
				ev.Reason, ev.DeletionPolicy = busv1.ReasonDeleted, busv1.DeletionDelete
			}
			e.send(ev)
			e.startNeeding(c, n)
			waitFor(t, "revision 2 handled", func() bool { return e.ackPending() == 0 && len(writesAfter(e.b.stores["good"], 1)) == 1 })
			if !tc.deleted {
				e.expectRows("good", 2, next)
			}
			ds := e.b.deltasOf("good")
			if tc.want == nil {
				if len(ds) != 0 {
					t.Fatalf("WriteDelta got %d snapshots, want the whole snapshot through Write", len(ds))
				}
				return
			}
			if len(ds) != 1 {
				t.Fatalf("WriteDelta got %d snapshots, want 1", len(ds))
			}
			tc.want.BaseChecksum = first.Checksum
			if d := cmp.Diff(tc.want, ds[0].Delta); d != "" {
				t.Fatalf("delta rebuilt from the history (-want +got):\n%s", d)
			}
		})
	}
}

// keys returns the keys of rows, in order.
func keys(rows []busv1.Row) []busv1.RowKey {
	out := make([]busv1.RowKey, len(rows))
	for i := range rows {
		out[i] = rows[i].Key()
	}
	return out
}
