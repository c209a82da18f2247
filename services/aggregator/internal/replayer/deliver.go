package replayer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/history"
)

// run delivers req's revisions in order and returns the final status,
// continuing st (Running, already reported). It reads the history's index
// (event heads, no envelope), reports the count of revisions selected, then
// reads each selected event by its sequence just before it publishes it:
// its memory is one event, however long the history (F2 of SECURITY-3). It
// reports progress after each revision.
func (r *Replayer) run(ctx context.Context, req busv1.ReplayRequest, st busv1.ReplayStatus) busv1.ReplayStatus {
	fail := func(reason string, err error) busv1.ReplayStatus {
		st.Phase, st.FinishedAt = busv1.ReplayFailed, time.Now().UTC()
		st.Outcome = busv1.Outcome{Reason: reason, Message: err.Error()}
		return st
	}
	ic, _, err := r.binding(ctx, req)
	if err != nil {
		return fail(failReason(err), err)
	}
	sel, err := r.selected(ctx, req, ic.UID)
	if err != nil {
		return fail(failReason(err), err)
	}
	st.RevisionsTotal = len(sel)
	r.report(ctx, req, st)
	state, err := r.js.KeyValue(ctx, bus.BucketExportState)
	if err != nil {
		return fail(v1alpha1.ReasonReplayFailed, fmt.Errorf("open KV bucket %s: %w", bus.BucketExportState, err))
	}
	if req.Backfill {
		// Regular exports of the binding wait while the backfill runs, so
		// that the sink gets the revisions in order, none in between.
		h, err := r.holdBinding(ctx, state, req)
		if err != nil {
			return fail(v1alpha1.ReasonReplayFailed, err)
		}
		defer h.release(ctx)
	}
	for i, e := range sel {
		s, err := history.At(ctx, r.js, req.Inventory, e.Sequence)
		if errors.Is(err, history.ErrNotFound) {
			err = notRetained(fmt.Errorf("revision %d of %s left the history while the replay ran: %w", e.Revision, req.Inventory, err))
		}
		if err != nil {
			return fail(failReason(err), err)
		}
		ev := s.Event
		ev.Replay = &busv1.Replay{UID: req.UID, Backfill: req.Backfill, First: req.Backfill && i == 0}
		if err := r.deliver(ctx, req, ic.UID, state, ev); err != nil {
			return fail(failReason(err), err)
		}
		st.RevisionsDone, st.LastRevision = st.RevisionsDone+1, ev.Revision
		if st.RevisionsDone < st.RevisionsTotal {
			r.report(ctx, req, st)
		}
	}
	st.Phase, st.FinishedAt = busv1.ReplaySucceeded, time.Now().UTC()
	return st
}

// selected reads the index of req's inventory and returns the entries the
// request delivers (selectEntries) of the inventory whose uid is uid.
func (r *Replayer) selected(ctx context.Context, req busv1.ReplayRequest, uid string) ([]history.Entry, error) {
	idx, err := history.Index(ctx, r.js, req.Inventory)
	if err != nil {
		return nil, err
	}
	sel, err := selectEntries(req, uid, idx)
	if err != nil {
		return nil, notRetained(err)
	}
	return sel, nil
}

// errNotBound is the cause of a replay whose inventory no longer binds the
// sink.
var errNotBound = errors.New("not bound")

// notRetainedError is the error of a replay whose revisions the history
// does not hold, or holds only for an earlier inventory of the name; its
// message is err's.
type notRetainedError struct{ err error }

func (e notRetainedError) Error() string { return e.err.Error() }
func (e notRetainedError) Unwrap() error { return e.err }

func notRetained(err error) error { return notRetainedError{err} }

// failReason is the reason of a replay that failed with err.
func failReason(err error) string {
	var nr notRetainedError
	switch {
	case errors.Is(err, errNotBound):
		return v1alpha1.ReasonSinkNotFound
	case errors.As(err, &nr):
		return v1alpha1.ReasonRevisionNotRetained
	}
	return v1alpha1.ReasonReplayFailed
}

// deliver publishes ev as a replay to req's binding and waits until the
// binding's export state records it replayed, publishing it again after
// each AckTimeout (an exporter drops a pending replay when a regular event
// of the binding arrives), at most Attempts times. Each attempt reads the
// inventory's config again: a binding removed, or an inventory deleted and
// created again (another uid than uid), stops the replay.
func (r *Replayer) deliver(ctx context.Context, req busv1.ReplayRequest, uid string, state jetstream.KeyValue, ev busv1.SnapshotEvent) error {
	key := bus.ExportStateKey(req.Inventory, req.Sink)
	for attempt := 1; ; attempt++ {
		ic, b, err := r.binding(ctx, req)
		if err != nil {
			return err
		}
		if ic.UID != uid {
			return notRetained(fmt.Errorf("inventory %s was deleted and created again while the replay ran (uid %s, now %s): "+
				"revision %d belongs to the earlier one and is not delivered", req.Inventory, uid, ic.UID, ev.Revision))
		}
		// The watch starts before the publish, so the acknowledgement
		// cannot be missed.
		w, err := state.Watch(ctx, key, jetstream.UpdatesOnly())
		if err != nil {
			return fmt.Errorf("watch export state %s: %w", key, err)
		}
		err = r.publish(ctx, ev, b, req.RequestedBy)
		if err == nil {
			err = r.acknowledged(ctx, w, ev)
		}
		_ = w.Stop()
		switch {
		case err == nil:
			return nil
		case ctx.Err() != nil:
			return ctx.Err()
		case attempt >= r.opts.Attempts:
			return fmt.Errorf("revision %d of %s: %w (%d attempts)", ev.Revision, req.Inventory, err, attempt)
		}
	}
}

// binding returns the inventory's current config and its binding to req's
// sink: exporters deliver only to bindings the config lists.
func (r *Replayer) binding(ctx context.Context, req busv1.ReplayRequest) (busv1.InventoryConfig, busv1.Binding, error) {
	var ic busv1.InventoryConfig
	kv, err := r.js.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return ic, busv1.Binding{}, fmt.Errorf("open KV bucket %s: %w", bus.BucketConfig, err)
	}
	e, err := kv.Get(ctx, bus.ConfigKey(bus.ConfigRef{Kind: req.InventoryKind, Namespace: req.Inventory.Namespace, Name: req.Inventory.Name}))
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return ic, busv1.Binding{}, fmt.Errorf("inventory %s has no config: %w", req.Inventory, errNotBound)
	}
	if err != nil {
		return ic, busv1.Binding{}, fmt.Errorf("read config of %s: %w", req.Inventory, err)
	}
	if err := json.Unmarshal(e.Value(), &ic); err != nil {
		return ic, busv1.Binding{}, fmt.Errorf("decode config of %s: %w", req.Inventory, err)
	}
	for _, b := range ic.Bindings {
		if b.SinkRef == req.Sink {
			return ic, b, nil
		}
	}
	return ic, busv1.Binding{}, fmt.Errorf("inventory %s does not bind sink %s: %w", req.Inventory, req.Sink.BindingName(), errNotBound)
}

// publish sends ev again as a replay addressed to b alone, without its
// delta.
func (r *Replayer) publish(ctx context.Context, ev busv1.SnapshotEvent, b busv1.Binding, by string) error {
	ev.Delta, ev.DeltaRef, ev.Bindings = nil, nil, []busv1.Binding{b}
	mark := busv1.Replay{}
	if ev.Replay != nil {
		mark = *ev.Replay // the replay's uid and backfill marks
	}
	mark.RequestedAt, mark.RequestedBy = time.Now().UTC(), by
	ev.Replay = &mark
	data, err := json.Marshal(ev)
	if err != nil {
		return err
	}
	if _, err := r.js.Publish(ctx, bus.SnapshotSubject(ev.Inventory), data, jetstream.WithMsgID(bus.ReplayMsgID(ev))); err != nil {
		return fmt.Errorf("publish replay of revision %d of %s: %w", ev.Revision, ev.Inventory, err)
	}
	return nil
}

// acknowledged waits until an update of the export state records ev as
// replayed, or AckTimeout passes.
func (r *Replayer) acknowledged(ctx context.Context, w jetstream.KeyWatcher, ev busv1.SnapshotEvent) error {
	timer := time.NewTimer(r.opts.AckTimeout)
	defer timer.Stop()
	for {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-timer.C:
			return fmt.Errorf("the sink did not acknowledge revision %d within %s", ev.Revision, r.opts.AckTimeout)
		case e := <-w.Updates():
			if e == nil || e.Operation() != jetstream.KeyValuePut {
				continue
			}
			var st busv1.ExportState
			if json.Unmarshal(e.Value(), &st) != nil || st.Replayed == nil {
				continue
			}
			if st.Replayed.Revision == ev.Revision && st.Replayed.Checksum == ev.Checksum {
				return nil
			}
		}
	}
}
