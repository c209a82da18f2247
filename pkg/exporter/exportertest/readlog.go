package exportertest

import (
	"context"
	"slices"
	"sync"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/backend"
)

// ReadLog is Credentials over a MapCredentials that records every Secret
// read, so a test can tell which Secrets a backend or policy asked for.
type ReadLog struct {
	backend.MapCredentials
	mu    sync.Mutex
	reads []busv1.NamespacedName
}

// Secret records the read and answers from the map.
func (r *ReadLog) Secret(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	r.mu.Lock()
	r.reads = append(r.reads, busv1.NamespacedName{Namespace: namespace, Name: name})
	r.mu.Unlock()
	return r.MapCredentials.Secret(ctx, namespace, name)
}

// Reads returns the reads so far, in order.
func (r *ReadLog) Reads() []busv1.NamespacedName {
	r.mu.Lock()
	defer r.mu.Unlock()
	return slices.Clone(r.reads)
}
