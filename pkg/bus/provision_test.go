package bus

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

func testContext(t *testing.T) context.Context {
	t.Helper()
	ctx, cancel := context.WithTimeout(t.Context(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// provisioned starts a NATS server and provisions it with o.
func provisioned(t *testing.T, o Options) (context.Context, jetstream.JetStream) {
	t.Helper()
	n := testenv.StartNATS(t)
	ctx := testContext(t)
	if err := Provision(ctx, n.JS, o); err != nil {
		t.Fatalf("Provision: %v", err)
	}
	return ctx, n.JS
}

// limits is what the tests compare of a stream's live configuration.
type limits struct {
	MaxMsgsPerSubject, MaxMsgs int64
	MaxAge                     time.Duration
	MaxMsgSize                 int32
	Replicas                   int
}

func streamLimits(ctx context.Context, t *testing.T, js jetstream.JetStream, name string) limits {
	t.Helper()
	s, err := js.Stream(ctx, name)
	if err != nil {
		t.Fatalf("stream %s: %v", name, err)
	}
	c := s.CachedInfo().Config
	return limits{c.MaxMsgsPerSubject, c.MaxMsgs, c.MaxAge, c.MaxMsgSize, c.Replicas}
}

func TestProvisionCreatesEverythingInTheCatalogue(t *testing.T) {
	o := DefaultOptions()
	ctx, js := provisioned(t, o)
	l := o.Catalogue()
	for _, s := range l.Streams {
		t.Run("stream "+s.Config.Name+" has the catalogue's limits", func(t *testing.T) {
			c := s.Config
			want := limits{c.MaxMsgsPerSubject, c.MaxMsgs, c.MaxAge, c.MaxMsgSize, c.Replicas}
			if diff := cmp.Diff(want, streamLimits(ctx, t, js, c.Name)); diff != "" {
				t.Errorf("limits (-catalogue +server):\n%s", diff)
			}
		})
	}
	for _, b := range l.Buckets {
		t.Run("bucket "+b.Config.Bucket+" keeps one value per key", func(t *testing.T) {
			kv, err := js.KeyValue(ctx, b.Config.Bucket)
			if err != nil {
				t.Fatal(err)
			}
			st, err := kv.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if st.History() != 1 {
				t.Errorf("history = %d, want 1", st.History())
			}
		})
	}
	for _, s := range l.ObjectStores {
		t.Run("object store "+s.Config.Bucket+" never expires objects and is bounded", func(t *testing.T) {
			obs, err := js.ObjectStore(ctx, s.Config.Bucket)
			if err != nil {
				t.Fatal(err)
			}
			st, err := obs.Status(ctx)
			if err != nil {
				t.Fatal(err)
			}
			// An unchanged chunk stays referenced by the current manifest for
			// as long as the inventory lives: only garbage collection may
			// remove it.
			stream, err := js.Stream(ctx, "OBJ_"+s.Config.Bucket)
			if err != nil {
				t.Fatal(err)
			}
			if max := stream.CachedInfo().Config.MaxBytes; st.TTL() != 0 || max != o.EnvelopeStoreMaxBytes || max <= 0 {
				t.Errorf("TTL = %v, max bytes %d; want no TTL and the bound %d", st.TTL(), max, o.EnvelopeStoreMaxBytes)
			}
		})
	}
	for _, c := range l.Consumers {
		t.Run("consumer "+c.Config.Durable+" starts at the last event per inventory", func(t *testing.T) {
			cons, err := js.Consumer(ctx, c.Stream, c.Config.Durable)
			if err != nil {
				t.Fatal(err)
			}
			got := cons.CachedInfo().Config
			if got.DeliverPolicy != jetstream.DeliverLastPerSubjectPolicy || got.AckWait != o.ExporterAckWait ||
				got.FilterSubject != SnapshotSubjects {
				t.Errorf("consumer config = deliver %v, ack wait %v, filter %q", got.DeliverPolicy, got.AckWait, got.FilterSubject)
			}
		})
	}
}

func TestProvisionIsIdempotentAndConverges(t *testing.T) {
	o := DefaultOptions()
	ctx, js := provisioned(t, o)
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "apps"}
	if _, err := js.Publish(ctx, SnapshotSubject(inv), []byte(`{"revision":1}`)); err != nil {
		t.Fatalf("publish: %v", err)
	}

	t.Run("provisioning again succeeds and keeps the stored events", func(t *testing.T) {
		before := streamLimits(ctx, t, js, StreamSnapshots)
		if err := Provision(ctx, js, o); err != nil {
			t.Fatalf("second Provision: %v", err)
		}
		if diff := cmp.Diff(before, streamLimits(ctx, t, js, StreamSnapshots)); diff != "" {
			t.Errorf("limits changed (-before +after):\n%s", diff)
		}
		if n := subjectCount(ctx, t, js, StreamSnapshots, SnapshotSubject(inv)); n != 1 {
			t.Errorf("events for %s after reprovisioning = %d, want 1", inv, n)
		}
	})

	t.Run("provisioning with new limits updates them in place", func(t *testing.T) {
		o.SnapshotHistory, o.SnapshotMaxAge, o.MaxMessageBytes = 3, time.Hour, 512<<10
		o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs, o.ExporterAckWait = 5, 50, 30*time.Second
		if err := Provision(ctx, js, o); err != nil {
			t.Fatalf("Provision with new limits: %v", err)
		}
		want := limits{MaxMsgsPerSubject: 3, MaxMsgs: -1, MaxAge: time.Hour, MaxMsgSize: 512 << 10, Replicas: 1}
		if diff := cmp.Diff(want, streamLimits(ctx, t, js, StreamSnapshots)); diff != "" {
			t.Errorf("snapshot stream limits (-want +got):\n%s", diff)
		}
		if got := streamLimits(ctx, t, js, StreamDeadLetters); got.MaxMsgsPerSubject != 5 || got.MaxMsgs != 50 {
			t.Errorf("dead-letter limits = %+v, want 5 per subject and 50 in all", got)
		}
		cons, err := js.Consumer(ctx, StreamSnapshots, ExporterConsumer(busv1.FamilyEvent))
		if err != nil || cons.CachedInfo().Config.AckWait != 30*time.Second {
			t.Errorf("event exporter consumer after update: %v, err %v", cons, err)
		}
	})

	t.Run("the updated history bounds events per inventory", func(t *testing.T) {
		for rev := 2; rev <= 6; rev++ {
			if _, err := js.Publish(ctx, SnapshotSubject(inv), []byte(`{}`)); err != nil {
				t.Fatalf("publish revision %d: %v", rev, err)
			}
		}
		if n := subjectCount(ctx, t, js, StreamSnapshots, SnapshotSubject(inv)); n != 3 {
			t.Errorf("events kept for %s = %d, want 3", inv, n)
		}
	})
}

func TestProvisionRejectsInvalidOptionsBeforeTouchingTheServer(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := testContext(t)
	o := DefaultOptions()
	o.Replicas, o.SnapshotHistory = 0, 0
	err := Provision(ctx, n.JS, o)
	if err == nil {
		t.Fatal("Provision with zero replicas and history succeeded")
	}
	if _, serr := n.JS.Stream(ctx, StreamSnapshots); !errors.Is(serr, jetstream.ErrStreamNotFound) {
		t.Errorf("stream lookup after rejected Provision = %v, want ErrStreamNotFound", serr)
	}
}

// subjectCount returns how many messages a stream holds on one subject.
func subjectCount(ctx context.Context, t *testing.T, js jetstream.JetStream, stream, subject string) uint64 {
	t.Helper()
	s, err := js.Stream(ctx, stream)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		t.Fatal(err)
	}
	return info.State.Subjects[subject]
}

// TestProvisionKeepsAByteBoundSetByHand: the snapshot stream and the
// envelope store get byte bounds, a changed option updates them, and a bound
// an operator set by hand (nats stream edit --max-bytes) survives every
// later Provision, as control runs it at each start.
func TestProvisionKeepsAByteBoundSetByHand(t *testing.T) {
	o := DefaultOptions()
	ctx, js := provisioned(t, o)
	maxBytes := func(name string) int64 {
		t.Helper()
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		return s.CachedInfo().Config.MaxBytes
	}
	envelopes := "OBJ_" + ObjectStoreEnvelopes
	if got := maxBytes(StreamSnapshots); got != o.SnapshotMaxBytes || got <= 0 {
		t.Fatalf("snapshot stream MaxBytes = %d, want %d", got, o.SnapshotMaxBytes)
	}
	o.SnapshotMaxBytes, o.EnvelopeStoreMaxBytes = 2<<30, 3<<30
	if err := Provision(ctx, js, o); err != nil {
		t.Fatal(err)
	}
	if maxBytes(StreamSnapshots) != 2<<30 || maxBytes(envelopes) != 3<<30 {
		t.Fatalf("changed options not applied: %d, %d", maxBytes(StreamSnapshots), maxBytes(envelopes))
	}
	for _, name := range []string{StreamSnapshots, envelopes} {
		s, err := js.Stream(ctx, name)
		if err != nil {
			t.Fatal(err)
		}
		cfg := s.CachedInfo().Config
		cfg.MaxBytes = 100 << 20
		if _, err := js.UpdateStream(ctx, cfg); err != nil {
			t.Fatal(err)
		}
	}
	o.SnapshotMaxBytes, o.EnvelopeStoreMaxBytes = 5<<30, 6<<30
	for range 2 {
		if err := Provision(ctx, js, o); err != nil {
			t.Fatal(err)
		}
		for _, name := range []string{StreamSnapshots, envelopes} {
			if got := maxBytes(name); got != 100<<20 {
				t.Errorf("%s MaxBytes = %d after Provision, want the 100 MiB set by hand", name, got)
			}
		}
	}
}
