package guardian

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
)

// Guardian checks the bus every Interval; it is a leader-only
// manager.Runnable.
type Guardian struct {
	// JS is the bus.
	JS jetstream.JetStream
	// Options are what the bus was provisioned with; Provision uses them
	// and the check lists the names they catalogue.
	Options bus.Options
	// Provision re-creates what is missing; false (--provision-bus=false:
	// an operator provisions by hand) leaves that to the operator.
	Provision bool
	// Resync reconciles every object that has a config entry.
	Resync func(ctx context.Context) error
	// Interval is the time between two checks.
	Interval time.Duration
	// Log receives one line per repair and per failure.
	Log logr.Logger

	// pass is the config bucket's incarnation the last complete pass was
	// made for; nil before this process saw one.
	pass *bus.Incarnation
}

// configStream is the stream of the config bucket, whose every incarnation
// needs a complete pass.
var configStream = []string{bus.KVStreamName(bus.BucketConfig)}

// Start checks at once, then every Interval until ctx ends.
func (g *Guardian) Start(ctx context.Context) error {
	t := time.NewTicker(g.Interval)
	defer t.Stop()
	for {
		if err := g.Check(ctx); err != nil && ctx.Err() == nil {
			g.Log.Error(err, "bus check failed; retrying", "retryIn", g.Interval.String())
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

// Check provisions what is missing and re-puts the config when the config
// bucket is not the one the last complete pass was made for, or lacks its
// marker.
// Without Provision (its NATS user may not read other streams) only the
// config bucket is checked.
func (g *Guardian) Check(ctx context.Context) error {
	if g.Provision {
		missing, err := g.missing(ctx)
		if err != nil {
			return err
		}
		if len(missing) > 0 {
			g.Log.Info("bus incomplete; provisioning again", "missing", missing)
			if err := bus.Provision(ctx, g.JS, g.Options); err != nil {
				return err
			}
		}
	}
	return g.completeConfig(ctx)
}

// missing lists the streams (KV buckets and object stores included) that
// Provision creates and the bus lacks.
func (g *Guardian) missing(ctx context.Context) ([]string, error) {
	l := g.Options.Catalogue()
	var names []string
	for _, s := range l.Streams {
		names = append(names, s.Config.Name)
	}
	for _, b := range l.Buckets {
		names = append(names, bus.KVStreamName(b.Config.Bucket))
	}
	for _, o := range l.ObjectStores {
		names = append(names, bus.ObjectStoreStreamName(o.Config.Bucket))
	}
	var out []string
	for _, n := range names {
		_, err := g.JS.Stream(ctx, n)
		switch {
		case errors.Is(err, jetstream.ErrStreamNotFound):
			out = append(out, n)
		case err != nil:
			return nil, fmt.Errorf("read stream %s: %w", n, err)
		}
	}
	for _, c := range l.Consumers {
		_, err := g.JS.Consumer(ctx, c.Stream, c.Config.Durable)
		if errors.Is(err, jetstream.ErrConsumerNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) {
			out = append(out, c.Stream+"/"+c.Config.Durable)
		} else if err != nil {
			return nil, fmt.Errorf("read consumer %s on %s: %w", c.Config.Durable, c.Stream, err)
		}
	}
	return out, nil
}

// completeConfig runs a full pass when the config bucket changed or lacks
// its marker, and writes the marker after it; the marker is written only if
// the bucket is still the one the pass started on. The marker is also what
// tells an emptied bucket: it is control's record of a complete pass,
// which a purge removes and a later leader reads.
func (g *Guardian) completeConfig(ctx context.Context) error {
	kv, err := g.JS.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		return fmt.Errorf("open KV bucket %s: %w", bus.BucketConfig, err)
	}
	_, err = kv.Get(ctx, bus.ConfigCompleteKey)
	switch {
	case err == nil && g.pass == nil:
		g.pass, err = g.watch(ctx) // a pass of an earlier leader or process made it
		return err
	case err == nil:
		if err := g.pass.Check(ctx); !errors.Is(err, bus.ErrReset) {
			return err // unchanged, or no answer
		}
	case !errors.Is(err, jetstream.ErrKeyNotFound):
		return fmt.Errorf("read %s: %w", bus.ConfigCompleteKey, err)
	}
	g.Log.Info("config bucket new, re-created or emptied; putting every object's config again")
	pass, err := g.watch(ctx)
	if err != nil {
		return err
	}
	if err := g.Resync(ctx); err != nil {
		return fmt.Errorf("put every object's config: %w", err)
	}
	if err := pass.Check(ctx); err != nil {
		return fmt.Errorf("confirm the config bucket of the pass: %w", err)
	}
	if _, err := kv.Put(ctx, bus.ConfigCompleteKey, []byte(time.Now().UTC().Format(time.RFC3339Nano))); err != nil {
		return fmt.Errorf("write %s: %w", bus.ConfigCompleteKey, err)
	}
	g.pass = pass
	g.Log.Info("every object's config put; the config bucket is complete")
	return nil
}

// watch takes the config bucket's incarnation; a missing bucket is an error.
func (g *Guardian) watch(ctx context.Context) (*bus.Incarnation, error) {
	inc, err := bus.Watch(ctx, g.JS, configStream)
	if err != nil {
		return nil, fmt.Errorf("watch the config bucket: %w", err)
	}
	return inc, nil
}
