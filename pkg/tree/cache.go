package tree

import (
	"sync"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Renderer renders like Render, and remembers per inventory the YAML of
// the per-row files of its last render, so that rendering a snapshot in
// which few rows changed converts only those to YAML (the dominant cost of
// the yaml perResource and split layouts). It holds, per inventory, the
// JSON and YAML of one snapshot's rows. Safe for concurrent use; the zero
// value is ready. Files it returns may share their Data with later
// renders: callers must not modify it.
type Renderer struct {
	mu    sync.Mutex
	cache map[inventoryKey]map[string][]byte
}

// inventoryKey names one inventory of one cluster.
type inventoryKey struct {
	cluster string
	inv     busv1.NamespacedName
}

// Render returns what Render(s, env) returns.
func (r *Renderer) Render(s Spec, env busv1.Envelope) ([]File, error) {
	key := inventoryKey{cluster: env.Cluster, inv: env.Inventory}
	r.mu.Lock()
	prev := r.cache[key]
	r.mu.Unlock()
	next := make(map[string][]byte, len(env.Items))
	files, err := render(s, env, func(j []byte) ([]byte, error) {
		if y, ok := prev[string(j)]; ok {
			next[string(j)] = y
			return y, nil
		}
		y, err := jsonToYAML(j)
		if err == nil {
			next[string(j)] = y
		}
		return y, err
	})
	if err != nil {
		return nil, err
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.cache == nil {
		r.cache = map[inventoryKey]map[string][]byte{}
	}
	r.cache[key] = next
	return files, nil
}

// Forget drops what r remembers of an inventory, e.g. once it is deleted.
func (r *Renderer) Forget(cluster string, inv busv1.NamespacedName) {
	r.mu.Lock()
	defer r.mu.Unlock()
	delete(r.cache, inventoryKey{cluster: cluster, inv: inv})
}
