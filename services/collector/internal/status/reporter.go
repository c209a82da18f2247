package status

import (
	"context"
	"encoding/json"
	"fmt"
	"reflect"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// Source builds the current report of a Target.
type Source interface {
	// Report returns the report of ref; ok is false when the Target is gone.
	Report(ref bus.ConfigRef) (report busv1.StatusReport, ok bool)
}

// Publisher publishes a message to a JetStream stream; jetstream.JetStream
// is one.
type Publisher interface {
	// Publish stores data on subject and waits for the stream's ack.
	Publish(ctx context.Context, subject string, data []byte, opts ...jetstream.PublishOpt) (*jetstream.PubAck, error)
}

// Reporter coalesces and publishes status reports.
type Reporter struct {
	pub      Publisher
	interval time.Duration
	log      logr.Logger
	observe  func(time.Duration)

	mu    sync.Mutex
	dirty map[bus.ConfigRef]struct{}
	last  map[bus.ConfigRef]busv1.StatusReport

	failing bool // the last publish failed; only flush uses it
}

// New returns a Reporter that publishes at most once per interval per
// Target; observe, when not nil, receives each publish's latency.
func New(pub Publisher, interval time.Duration, log logr.Logger, observe func(time.Duration)) *Reporter {
	return &Reporter{pub: pub, interval: interval, log: log, observe: observe,
		dirty: map[bus.ConfigRef]struct{}{}, last: map[bus.ConfigRef]busv1.StatusReport{}}
}

// Mark records that ref's status may have changed.
func (r *Reporter) Mark(ref bus.ConfigRef) {
	r.mu.Lock()
	r.dirty[ref] = struct{}{}
	r.mu.Unlock()
}

// Run publishes the reports of marked Targets every interval until ctx is
// cancelled.
func (r *Reporter) Run(ctx context.Context, src Source) error {
	t := time.NewTicker(r.interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			r.flush(ctx, src)
		}
	}
}

func (r *Reporter) flush(ctx context.Context, src Source) {
	r.mu.Lock()
	dirty := r.dirty
	r.dirty = map[bus.ConfigRef]struct{}{}
	r.mu.Unlock()
	for ref := range dirty {
		rep, ok := src.Report(ref)
		r.mu.Lock()
		last, published := r.last[ref]
		if !ok {
			delete(r.last, ref)
		}
		r.mu.Unlock()
		if !ok || (published && same(last, rep)) {
			continue
		}
		if err := r.publish(ctx, rep); err != nil {
			if ctx.Err() == nil && !r.failing {
				r.log.Error(err, "status reports not published; retrying every interval", app.KeyKind, ref.Kind,
					app.KeyNamespace, ref.Namespace, app.KeyTarget, ref.Name)
			}
			r.failing = true
			r.Mark(ref)
			continue
		}
		if r.failing {
			r.log.Info("status reports published again")
			r.failing = false
		}
		r.mu.Lock()
		r.last[ref] = rep
		r.mu.Unlock()
	}
}

// same compares reports without their observation time.
func same(a, b busv1.StatusReport) bool {
	a.ObservedAt, b.ObservedAt = time.Time{}, time.Time{}
	return reflect.DeepEqual(a, b)
}

func (r *Reporter) publish(ctx context.Context, rep busv1.StatusReport) error {
	subject := bus.StatusSubjectFor(rep)
	b, err := json.Marshal(rep)
	if err != nil {
		return fmt.Errorf("encode status report %s: %w", subject, err)
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	start := time.Now()
	if _, err := r.pub.Publish(ctx, subject, b); err != nil {
		return fmt.Errorf("publish status report %s: %w", subject, err)
	}
	if r.observe != nil {
		r.observe(time.Since(start))
	}
	return nil
}
