package sinktest

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Projection is one inventory's data as a sink stores it, read back.
type Projection struct {
	// Revision is the snapshot revision the projection holds.
	Revision uint64
	// Checksum is the checksum of the snapshot the projection holds.
	Checksum string
	// Rows are the rows stored, in canonical order (busv1.CompareRows).
	Rows []busv1.Row
}

// Reader reads back what a sink stored for one inventory of one cluster.
// found is false when the sink holds nothing for it.
type Reader interface {
	Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (p Projection, found bool, err error)
}

// Factory creates the sinks under test. Each call of New returns a sink with
// an empty projection and a Reader of what it stores.
type Factory struct {
	// New creates a working sink and its Reader; the test cleans it up.
	New func(t *testing.T) (sink.Sink, Reader)
	// BadCredentials creates a sink of the same backend with credentials
	// the peer refuses; nil for backends without credentials, which skips
	// that case.
	BadCredentials func(t *testing.T) sink.Sink
}

// Cluster is the cluster every snapshot of the suite is stamped with.
const Cluster = "conformance"

// Run runs the conformance suite against the sinks f creates.
func Run(t *testing.T, f Factory) {
	t.Helper()
	for _, c := range cases() {
		t.Run(c.name, func(t *testing.T) {
			s, r := f.New(t)
			Close(t, s)
			c.run(t, &harness{t: t, sink: s, reader: r})
		})
	}
	t.Run("bad credentials are a permanent error", func(t *testing.T) {
		if f.BadCredentials == nil {
			t.Skip("the backend has no credentials")
		}
		checkBadCredentials(t, f.BadCredentials(t))
	})
}

// Close closes s when the test ends and fails the test if closing fails: a
// sink's Close may flush or release what a write left.
func Close(t testing.TB, s sink.Sink) {
	t.Helper()
	t.Cleanup(func() {
		if err := s.Close(context.Background()); err != nil {
			t.Errorf("close sink: %v", err)
		}
	})
}
