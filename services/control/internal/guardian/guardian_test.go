package guardian

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// entry is a compiled config a resync puts back, as the reconcilers do.
const entry = "KollectTarget.team-a.web"

func newGuardian(t *testing.T) (*Guardian, *int) {
	t.Helper()
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	resyncs := new(int)
	g := &Guardian{JS: n.JS, Options: bus.DefaultOptions(), Provision: true, Interval: time.Hour, Log: logr.Discard(),
		Resync: func(ctx context.Context) error {
			*resyncs++
			kv, err := n.JS.KeyValue(ctx, bus.BucketConfig)
			if err != nil {
				return err
			}
			_, err = kv.Put(ctx, entry, []byte(`{}`))
			return err
		}}
	return g, resyncs
}

func (g *Guardian) mustCheck(t *testing.T) {
	t.Helper()
	if err := g.Check(t.Context()); err != nil {
		t.Fatal(err)
	}
}

// complete reports whether the config bucket holds the entry and the marker.
func (g *Guardian) complete(t *testing.T) error {
	t.Helper()
	kv, err := g.JS.KeyValue(t.Context(), bus.BucketConfig)
	if err != nil {
		return err
	}
	for _, k := range []string{entry, bus.ConfigCompleteKey} {
		if _, err := kv.Get(t.Context(), k); err != nil {
			return err
		}
	}
	return nil
}

func TestGuardianKeepsTheBusWhole(t *testing.T) {
	t.Run("a fresh bus gets one full pass and the marker", func(t *testing.T) {
		g, resyncs := newGuardian(t)
		g.mustCheck(t)
		g.mustCheck(t)
		if *resyncs != 1 {
			t.Fatalf("%d passes, want 1", *resyncs)
		}
		if err := g.complete(t); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a pass an earlier leader made is not repeated", func(t *testing.T) {
		g, resyncs := newGuardian(t)
		g.mustCheck(t)
		next := &Guardian{JS: g.JS, Options: g.Options, Provision: true, Interval: time.Hour, Log: logr.Discard(), Resync: g.Resync}
		next.mustCheck(t)
		if *resyncs != 1 {
			t.Fatalf("%d passes, want 1", *resyncs)
		}
	})
	t.Run("lost streams are provisioned again and the config put again", func(t *testing.T) {
		g, resyncs := newGuardian(t)
		g.mustCheck(t)
		ctx := t.Context()
		if err := g.JS.DeleteKeyValue(ctx, bus.BucketConfig); err != nil {
			t.Fatal(err)
		}
		if err := g.JS.DeleteStream(ctx, bus.StreamSnapshots); err != nil {
			t.Fatal(err)
		}
		g.mustCheck(t)
		if *resyncs != 2 {
			t.Fatalf("%d passes, want 2", *resyncs)
		}
		if err := g.complete(t); err != nil {
			t.Fatal(err)
		}
		missing, err := g.missing(ctx)
		if err != nil || len(missing) != 0 {
			t.Fatalf("missing after the check: %v, %v", missing, err)
		}
		for _, c := range g.Options.Catalogue().Consumers {
			if _, err := g.JS.Consumer(ctx, c.Stream, c.Config.Durable); err != nil {
				t.Errorf("consumer %s: %v", c.Config.Durable, err)
			}
		}
	})
	t.Run("an emptied config bucket is put again", func(t *testing.T) {
		g, resyncs := newGuardian(t)
		g.mustCheck(t)
		s, err := g.JS.Stream(t.Context(), bus.KVStreamName(bus.BucketConfig))
		if err != nil {
			t.Fatal(err)
		}
		if err := s.Purge(t.Context()); err != nil {
			t.Fatal(err)
		}
		g.mustCheck(t)
		if *resyncs != 2 {
			t.Fatalf("%d passes, want 2", *resyncs)
		}
		if err := g.complete(t); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("a failed pass writes no marker and is retried", func(t *testing.T) {
		g, resyncs := newGuardian(t)
		put := g.Resync
		g.Resync = func(context.Context) error { *resyncs++; return errors.New("conflict") }
		if err := g.Check(t.Context()); err == nil {
			t.Fatal("a failed pass reported no error")
		}
		kv, err := g.JS.KeyValue(t.Context(), bus.BucketConfig)
		if err != nil {
			t.Fatal(err)
		}
		if _, err := kv.Get(t.Context(), bus.ConfigCompleteKey); !errors.Is(err, jetstream.ErrKeyNotFound) {
			t.Fatalf("marker after a failed pass: %v", err)
		}
		g.Resync = put
		g.mustCheck(t)
		if err := g.complete(t); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("without provisioning only the config is checked", func(t *testing.T) {
		g, resyncs := newGuardian(t)
		g.Provision = false
		if err := g.JS.DeleteStream(t.Context(), bus.StreamSnapshots); err != nil {
			t.Fatal(err)
		}
		g.mustCheck(t)
		if *resyncs != 1 {
			t.Fatalf("%d passes, want 1", *resyncs)
		}
		if _, err := g.JS.Stream(t.Context(), bus.StreamSnapshots); !errors.Is(err, jetstream.ErrStreamNotFound) {
			t.Fatalf("snapshot stream provisioned without --provision-bus: %v", err)
		}
	})
}
