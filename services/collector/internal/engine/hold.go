package engine

import (
	"context"
	"errors"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// An entry missing from the config bucket is a deleted Target only while the
// bucket is complete (bus.ConfigCompleteKey, written by control after it put
// every object's config). A bucket lost with the NATS store, re-created or
// emptied looks like every Target was deleted: purging their rows would wipe
// every sink. So deletions wait for the marker; puts apply at once.

// want records that ref is configured (true) or not (false); it reports
// whether the config is complete, so that a deletion may apply.
func (e *Engine) want(ref bus.ConfigRef, configured bool) bool {
	e.holdMu.Lock()
	defer e.holdMu.Unlock()
	if e.desired == nil {
		e.desired = map[bus.ConfigRef]bool{}
	}
	if configured {
		e.desired[ref] = true
	} else {
		delete(e.desired, ref)
	}
	return e.complete
}

// Complete is told that the config bucket became complete (the marker
// appeared) or incomplete (it vanished). Becoming complete applies every
// deletion held meanwhile: Targets and rows of Targets that are still not
// configured.
func (e *Engine) Complete(ctx context.Context, complete bool) error {
	e.holdMu.Lock()
	was := e.complete
	e.complete = complete
	e.holdMu.Unlock()
	if complete == was {
		return nil
	}
	e.cfg.Log.Info("config bucket completeness changed", "configComplete", complete)
	if !complete {
		return nil
	}
	return e.applyDeletions(ctx)
}

// ConfigComplete reports whether the config bucket is complete, so that the
// Targets the engine runs are all there are.
func (e *Engine) ConfigComplete() bool {
	e.holdMu.Lock()
	defer e.holdMu.Unlock()
	return e.complete
}

// applyDeletions removes the Targets that are not configured and purges the
// rows of Targets nobody configures.
func (e *Engine) applyDeletions(ctx context.Context) error {
	e.holdMu.Lock()
	desired := make(map[bus.ConfigRef]bool, len(e.desired))
	for ref := range e.desired {
		desired[ref] = true
	}
	e.holdMu.Unlock()
	e.mu.RLock()
	var gone []bus.ConfigRef
	for ref := range e.targets {
		if !desired[ref] {
			gone = append(gone, ref)
		}
	}
	e.mu.RUnlock()
	var errs []error
	for _, ref := range gone {
		errs = append(errs, e.remove(ctx, ref))
	}
	for _, t := range e.cfg.Rows.Targets() {
		ref := bus.ConfigRef{Kind: busv1.KindTarget, Namespace: t.Namespace, Name: t.Name}
		if t.Namespace == "" {
			ref.Kind = busv1.KindClusterTarget
		}
		if !desired[ref] {
			e.cfg.Log.Info("purging the rows of a target nobody configures", app.KeyTarget, ref.Name,
				app.KeyNamespace, ref.Namespace)
			errs = append(errs, e.purge(ctx, ref))
		}
	}
	return errors.Join(errs...)
}
