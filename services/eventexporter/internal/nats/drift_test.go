package nats_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
	natssink "kollect.dev/kollect/services/eventexporter/internal/nats"
)

func TestDriftIsFoundAndRepairedAfterTheStreamIsDamagedByHand(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name   string
		damage func(t *testing.T, js jetstream.JetStream)
		want   string
	}{
		{"a purged stream", func(t *testing.T, js jetstream.JetStream) {
			st, err := js.Stream(ctx, "DRIFT")
			if err == nil {
				err = st.Purge(ctx)
			}
			if err != nil {
				t.Fatal(err)
			}
		}, "missing: purged"},
		{"the last message deleted", func(t *testing.T, js jetstream.JetStream) {
			st, err := js.Stream(ctx, "DRIFT")
			if err == nil {
				err = st.DeleteMsg(ctx, st.CachedInfo().State.LastSeq)
			}
			if err != nil {
				t.Fatal(err)
			}
		}, "missing: purged"},
		{"a deleted stream", func(t *testing.T, js jetstream.JetStream) {
			if err := js.DeleteStream(ctx, "DRIFT"); err != nil {
				t.Fatal(err)
			}
		}, "stream DRIFT missing"},
		{"a stream re-created and written by someone else", func(t *testing.T, js jetstream.JetStream) {
			if err := js.DeleteStream(ctx, "DRIFT"); err != nil {
				t.Fatal(err)
			}
			if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "DRIFT", Subjects: []string{"drift.events"}}); err != nil {
				t.Fatal(err)
			}
			for range 2 {
				if _, err := js.Publish(ctx, "drift.events", []byte("{}")); err != nil {
					t.Fatal(err)
				}
			}
		}, "re-created"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := startNATS(t, nil)
			s := newSink(t, private, sinkConfig(t, spec(p.url, "drift.events", "DRIFT")), nil)
			write(t, s, snap(t, 1, row("a", 1.0)))
			sn := snap(t, 2, row("a", 1.0), row("b", 2.0)) // JSON numbers decode as float64
			write(t, s, sn)
			if got, err := s.Drift(ctx, sn); err != nil || got != "" {
				t.Fatalf("drift of an intact stream = %q, %v; want none", got, err)
			}
			tc.damage(t, p.js)
			got, err := s.Drift(ctx, sn)
			if err != nil || !strings.Contains(got, tc.want) {
				t.Fatalf("drift after %s = %q, %v; want a reason containing %q", tc.name, got, err, tc.want)
			}
			repair := sn
			repair.Repair = true
			write(t, s, repair)
			proj, found, err := reader{js: p.js, stream: "DRIFT"}.Read(ctx, "east", web)
			if err != nil || !found {
				t.Fatalf("read back the repaired stream: %v (found %t)", err, found)
			}
			want := sinktest.Projection{Revision: 2, Checksum: sn.Envelope.Checksum, Rows: sn.Envelope.Items}
			if d := cmp.Diff(want, proj); d != "" {
				t.Fatalf("the repaired stream (-want +got):\n%s", d)
			}
			if got, err := s.Drift(ctx, sn); err != nil || got != "" {
				t.Fatalf("drift after the repair = %q, %v; want none", got, err)
			}
		})
	}
}

// A repair is stored even within the duplicate window of the message it
// replaces: its message id is its own.
func TestARepairIsNotDroppedAsADuplicate(t *testing.T) {
	ctx := context.Background()
	p := startNATS(t, nil)
	s := newSink(t, private, sinkConfig(t, spec(p.url, "dup.events", "DUP")), nil)
	sn := snap(t, 1, row("a", 1.0))
	write(t, s, sn)
	repair := sn
	repair.Repair = true
	write(t, s, repair)
	ids := stored(t, p.js, "DUP")
	if len(ids) != 2 || !strings.Contains(ids[1], "/repair/") {
		t.Fatalf("message ids %v, want the export and its repair", ids)
	}
	if m, err := p.js.Stream(ctx, "DUP"); err != nil || m.CachedInfo().State.Msgs != 2 {
		t.Fatalf("stream DUP: %v", err)
	}
}

func TestASinkWithoutMemoryOfTheRevisionChecksTheStreamOnly(t *testing.T) {
	ctx := context.Background()
	p := startNATS(t, nil)
	cfg := sinkConfig(t, spec(p.url, "restart.events", "RESTART"))
	sn := snap(t, 1, row("a", 1.0))
	write(t, newSink(t, private, cfg, nil), sn)
	restarted := newSink(t, private, cfg, nil)
	st, err := p.js.Stream(ctx, "RESTART")
	if err == nil {
		err = st.Purge(ctx)
	}
	if err != nil {
		t.Fatal(err)
	}
	if got, err := restarted.Drift(ctx, sn); err != nil || got != "" {
		t.Fatalf("drift seen by a new sink = %q, %v; want none (it cannot tell)", got, err)
	}
	if err := p.js.DeleteStream(ctx, "RESTART"); err != nil {
		t.Fatal(err)
	}
	if got, err := restarted.Drift(ctx, sn); err != nil || !strings.Contains(got, "missing") {
		t.Fatalf("drift seen by a new sink after the stream was deleted = %q, %v; want the stream missing", got, err)
	}
}

// After the stream's duplicate window, a revision delivered again to a new
// sink (a restart after a kill between the publish and the export state)
// is stored a second time, identical but for its stream sequence: the
// documented case consumers dedupe by Nats-Msg-Id or headers.
func TestARepeatAfterTheDuplicateWindowIsStoredAgain(t *testing.T) {
	ctx := context.Background()
	p := startNATS(t, nil)
	if _, err := p.js.CreateStream(ctx, jetstream.StreamConfig{Name: "SHORT", Subjects: []string{"short.events"},
		Duplicates: 100 * time.Millisecond}); err != nil {
		t.Fatal(err)
	}
	cfg := sinkConfig(t, spec(p.url, "short.events", "SHORT"))
	sn := snap(t, 1, row("a", 1.0))
	write(t, newSink(t, private, cfg, nil), sn)
	var ids []string
	// Past the deadline the comparison below fails with the ids stored.
	_ = testenv.Poll(t.Context(), 10*time.Second, func() error {
		write(t, newSink(t, private, cfg, nil), sn)
		if ids = stored(t, p.js, "SHORT"); len(ids) < 2 {
			return errors.New("stored once")
		}
		return nil
	})
	id := natssink.MsgID(sn.Envelope, false)
	if d := cmp.Diff([]string{id, id}, ids); d != "" {
		t.Fatalf("message ids after the window (-want +got):\n%s", d)
	}
}
