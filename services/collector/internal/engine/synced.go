package engine

import (
	"kollect.dev/kollect/api/v1alpha1"
)

// InitialSyncDone reports whether the engine's initial sync is on its way to the
// bus: the config bucket is complete and applied, every active Target's
// informer holds a full list (or cannot, for a reason its status shows),
// and no object or sweep is queued or being processed. The rows store may
// still hold unacknowledged writes: flush it before saying so on the bus.
func (e *Engine) InitialSyncDone() bool {
	if !e.Configured() || !e.ConfigComplete() {
		return false
	}
	if e.queue.Len() > 0 || e.busy.Load() > 0 {
		return false
	}
	e.mu.RLock()
	defer e.mu.RUnlock()
	for gvk := range e.byGVK {
		_, synced, running := e.cfg.Informers.Store(gvk)
		if running && synced {
			continue
		}
		if s := e.cfg.Informers.State(gvk); s.Reason == "" || s.Reason == v1alpha1.ReasonProgressing {
			return false
		}
	}
	return e.queue.Len() == 0 && e.busy.Load() == 0
}
