package exporter

import (
	"context"
	"crypto/sha256"
	"slices"
	"sync"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// recorder is the Credentials a backend sees while building one sink: it
// remembers a digest of every Secret read, so that the runtime can tell
// when one of them changed (rotation) and rebuild the sink.
type recorder struct {
	backend.Credentials
	mu   sync.Mutex
	read map[busv1.NamespacedName][32]byte
}

// Secret reads through and records the digest of what was read.
func (r *recorder) Secret(ctx context.Context, namespace, name string) (map[string][]byte, error) {
	data, err := r.Credentials.Secret(ctx, namespace, name)
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.read == nil {
		r.read = map[busv1.NamespacedName][32]byte{}
	}
	r.read[busv1.NamespacedName{Namespace: namespace, Name: name}] = digest(data, err)
	return data, err
}

// digest hashes a Secret's data (keys sorted); a read error hashes as
// absent, so that a Secret created after a failed build counts as changed.
func digest(data map[string][]byte, err error) [32]byte {
	h := sha256.New()
	if err != nil {
		h.Write([]byte{0})
		return [32]byte(h.Sum(nil))
	}
	keys := make([]string, 0, len(data))
	for k := range data {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		h.Write([]byte(k))
		h.Write([]byte{0})
		h.Write(data[k])
		h.Write([]byte{0})
	}
	return [32]byte(h.Sum(nil))
}

// changed reports whether any Secret an instance was built from reads
// differently now.
func (c *configs) changed(ctx context.Context, read map[busv1.NamespacedName][32]byte) bool {
	for n, d := range read {
		data, err := c.creds.Secret(ctx, n.Namespace, n.Name)
		if ctx.Err() != nil {
			return false
		}
		if digest(data, err) != d {
			return true
		}
	}
	return false
}

// rotate retires every built sink whose Secrets changed, so that its next
// use builds it from the new credentials; it returns how many it retired.
// If only is set, it checks that sink alone.
func (c *configs) rotate(ctx context.Context, only *busv1.SinkRef) int {
	c.mu.Lock()
	check := map[busv1.SinkRef]*instance{}
	for ref, in := range c.instances {
		if only == nil || *only == ref {
			check[ref] = in
		}
	}
	c.mu.Unlock()
	var closing []sink.Sink
	n := 0
	for ref, in := range check {
		if !c.changed(ctx, in.secrets) {
			continue
		}
		c.mu.Lock()
		if c.instances[ref] == in {
			delete(c.instances, ref)
			n++
			if retire(in) {
				closing = append(closing, in.sink)
			}
		}
		c.mu.Unlock()
	}
	for _, s := range closing {
		_ = s.Close(ctx)
	}
	return n
}

// watchSecrets checks the built sinks' Secrets every interval until ctx
// ends.
func (rt *runtime) watchSecrets(ctx context.Context, interval time.Duration) {
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			for range rt.configs.rotate(ctx, nil) {
				rt.metrics.rotated()
			}
		}
	}
}
