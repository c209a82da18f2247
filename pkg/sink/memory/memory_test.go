package memory_test

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/memory"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// reader reads a memory store back for the conformance suite.
type reader struct{ store *memory.Store }

func (r reader) Read(_ context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	s, ok := r.store.Get(cluster, inv)
	return sinktest.Projection{Revision: s.Revision, Checksum: s.Checksum, Rows: s.Rows}, ok, nil
}

func TestConformance(t *testing.T) {
	sinktest.Run(t, sinktest.Factory{
		New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
			st := memory.NewStore("s3cret")
			return st.Sink("s3cret"), reader{st}
		},
		BadCredentials: func(t *testing.T) sink.Sink {
			return memory.NewStore("s3cret").Sink("wrong")
		},
	})
}
