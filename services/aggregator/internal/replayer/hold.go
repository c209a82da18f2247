package replayer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"kollect.dev/kollect/pkg/app"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// hold is a backfill's hold on its binding's export state
// (busv1.ExportState.Hold): exporters defer the binding's regular events
// while it is live, so that no newer revision lands between two backfilled
// ones. It is set before the first revision is published, renewed every
// third of HoldTTL, and cleared when the backfill ends; it lapses by itself
// when the aggregator dies.
type hold struct {
	r    *Replayer
	kv   jetstream.KeyValue
	key  string
	base busv1.ExportState // inventory and sink, for a state not yet written
	h    busv1.ExportHold

	stop chan struct{}
	done chan struct{}
}

// holdBinding sets the hold of req on its binding and keeps it renewed
// until release.
func (r *Replayer) holdBinding(ctx context.Context, kv jetstream.KeyValue, req busv1.ReplayRequest) (*hold, error) {
	h := &hold{r: r, kv: kv, key: bus.ExportStateKey(req.Inventory, req.Sink),
		base: busv1.ExportState{Inventory: req.Inventory, Sink: req.Sink},
		h:    busv1.ExportHold{Replay: busv1.NamespacedName{Namespace: req.Namespace, Name: req.Name}, UID: req.UID},
		stop: make(chan struct{}), done: make(chan struct{})}
	if err := h.write(ctx, true); err != nil {
		return nil, fmt.Errorf("hold the regular exports of %s to %s: %w", req.Inventory, req.Sink.BindingName(), err)
	}
	go h.renew(ctx)
	return h, nil
}

// renew extends the hold every third of its TTL until release; a failed
// renewal is logged and tried again at the next tick.
func (h *hold) renew(ctx context.Context) {
	defer close(h.done)
	t := time.NewTicker(h.r.opts.HoldTTL / 3)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-h.stop:
			return
		case <-t.C:
		}
		if err := h.write(ctx, true); err != nil && ctx.Err() == nil {
			h.r.opts.Log.Error(err, "renew the backfill's hold", app.KeyKey, h.key, "replay", h.h.Replay.String())
		}
	}
}

// release stops renewing and clears the hold (best effort even when ctx
// ended: an uncleared hold lapses at its expiry).
func (h *hold) release(ctx context.Context) {
	close(h.stop)
	<-h.done
	cctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), h.r.opts.HoldTTL/3)
	defer cancel()
	if err := h.write(cctx, false); err != nil {
		h.r.opts.Log.Error(err, "clear the backfill's hold", app.KeyKey, h.key, "replay", h.h.Replay.String())
	}
}

// write sets the hold with a new expiry, or clears it when it is this
// backfill's, with compare-and-set, keeping every other field of the state
// (the exporters' revision, replay record and claim).
func (h *hold) write(ctx context.Context, set bool) error {
	var err error
	for range 10 {
		st, rev, rerr := h.read(ctx)
		if rerr != nil {
			return rerr
		}
		if set {
			hd := h.h
			hd.Expires = time.Now().Add(h.r.opts.HoldTTL).UTC()
			st.Hold = &hd
		} else {
			if rev == 0 || st.Hold == nil || st.Hold.UID != h.h.UID {
				return nil
			}
			st.Hold = nil
		}
		b, merr := json.Marshal(st)
		if merr != nil {
			return merr
		}
		if rev == 0 {
			_, err = h.kv.Create(ctx, h.key, b)
		} else {
			_, err = h.kv.Update(ctx, h.key, b, rev)
		}
		if err == nil || !errors.Is(err, jetstream.ErrKeyExists) && !errors.Is(err, jetstream.ErrKeyRevisionMismatch) {
			return err
		}
	}
	return fmt.Errorf("export state %s kept changing: %w", h.key, err)
}

// read returns the binding's export state and its KV revision (0: none).
func (h *hold) read(ctx context.Context) (busv1.ExportState, uint64, error) {
	e, err := h.kv.Get(ctx, h.key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return h.base, 0, nil
	}
	if err != nil {
		return h.base, 0, fmt.Errorf("read export state %s: %w", h.key, err)
	}
	st := h.base
	if json.Unmarshal(e.Value(), &st) != nil {
		st = h.base // a corrupt state: the next export repairs it
	}
	return st, e.Revision(), nil
}
