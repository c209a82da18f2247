package engine

import (
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	"kollect.dev/kollect/services/collector/internal/informers"
)

var _ informers.Handler = (*Engine)(nil)

// ObjectChanged queues the object.
func (e *Engine) ObjectChanged(gvk schema.GroupVersionKind, key string, uid types.UID) {
	e.queue.Add(objectWork(gvk, key, uid))
}

// NamespaceChanged queues every cached object of the namespace, whose
// selection may have changed, and marks every Target for its matched
// namespaces.
func (e *Engine) NamespaceChanged(name string) {
	for gvk, store := range e.cfg.Informers.Stores() {
		objs, err := store.ByIndex(cache.NamespaceIndex, name)
		if err != nil {
			continue
		}
		for _, obj := range objs {
			e.enqueueObject(gvk, obj)
		}
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for ref := range e.targets {
		e.cfg.Status.Mark(ref)
	}
}

// Synced queues a sweep of every Target of gvk.
func (e *Engine) Synced(gvk schema.GroupVersionKind) { e.sweepAll(gvk, false) }

// Gone queues a sweep of every Target of gvk that removes all their rows.
func (e *Engine) Gone(gvk schema.GroupVersionKind) { e.sweepAll(gvk, true) }

func (e *Engine) sweepAll(gvk schema.GroupVersionKind, gone bool) {
	for _, ts := range e.activeTargets(gvk) {
		e.queue.Add(sweepWork(ts.ref, gone))
	}
}

// StateChanged marks the Targets of gvk.
func (e *Engine) StateChanged(gvk schema.GroupVersionKind) {
	for _, ts := range e.activeTargets(gvk) {
		e.cfg.Status.Mark(ts.ref)
	}
}
