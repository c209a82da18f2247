package configwatch

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"math"
	"slices"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go/jetstream"
	"k8s.io/apimachinery/pkg/util/wait"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// Handler applies the desired Targets.
type Handler interface {
	// Reset replaces every Target with cfgs, the bucket's whole content;
	// complete says whether the bucket holds bus.ConfigCompleteKey.
	Reset(ctx context.Context, cfgs []busv1.TargetConfig, complete bool) error
	// Complete is told that bus.ConfigCompleteKey appeared (true) or
	// vanished (false) after the Reset.
	Complete(ctx context.Context, complete bool) error
	// Put adds or changes one Target.
	Put(ctx context.Context, cfg busv1.TargetConfig) error
	// Delete removes one Target.
	Delete(ctx context.Context, ref bus.ConfigRef) error
}

// Watcher follows the Target entries of the compiled-config bucket.
type Watcher struct {
	// KV is the compiled-config bucket.
	KV jetstream.KeyValue
	// Handler receives the Targets.
	Handler Handler
	// Log receives watch failures and undecodable entries.
	Log logr.Logger
	// MaxBackoff bounds the wait between restarts of a failed watch.
	MaxBackoff time.Duration
	// Reconnected, when set, returns a channel that is closed at the next
	// reconnect to NATS; the watch then restarts at once instead of waiting
	// for the consumer to notice the server restarted.
	Reconnected func() <-chan struct{}
}

// errReconnected ends a watch after a reconnect to NATS.
var errReconnected = errors.New("reconnected to NATS")

// Run watches until ctx is cancelled; it never returns an error, since every
// failure is retried.
func (w *Watcher) Run(ctx context.Context) error {
	fresh := func() wait.Backoff {
		return wait.Backoff{Duration: 100 * time.Millisecond, Factor: 2, Jitter: 0.5, Steps: math.MaxInt32,
			Cap: max(w.MaxBackoff, time.Second)}
	}
	backoff := fresh()
	for {
		err := w.watch(ctx)
		if ctx.Err() != nil {
			return nil //nolint:nilerr // a cancelled ctx is a clean stop
		}
		if errors.Is(err, errReconnected) {
			w.Log.Info("reconnected to NATS; restarting the config watch")
			backoff = fresh()
			continue
		}
		w.Log.Error(err, "config watch failed; restarting")
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(backoff.Step()):
		}
	}
}

func (w *Watcher) watch(ctx context.Context) error {
	var reconnected <-chan struct{}
	if w.Reconnected != nil {
		reconnected = w.Reconnected()
	}
	filters := []string{bus.ConfigKeyFilter(busv1.KindTarget), bus.ConfigKeyFilter(busv1.KindClusterTarget),
		bus.ConfigCompleteKey}
	kw, err := w.KV.WatchFiltered(ctx, filters)
	if err != nil {
		return fmt.Errorf("watch %s for targets: %w", w.KV.Bucket(), err)
	}
	defer func() { _ = kw.Stop() }()
	initial := map[bus.ConfigRef]busv1.TargetConfig{}
	synced, complete := false, false
	for {
		var e jetstream.KeyValueEntry
		select {
		case <-ctx.Done():
			return nil
		case <-reconnected:
			return errReconnected
		case v, ok := <-kw.Updates():
			if !ok {
				return errors.New("config watch closed")
			}
			e = v
		}
		if e == nil {
			if err := w.Handler.Reset(ctx, slices.Collect(maps.Values(initial)), complete); err != nil {
				return err
			}
			synced, initial = true, nil
			continue
		}
		if e.Key() == bus.ConfigCompleteKey {
			complete = e.Operation() == jetstream.KeyValuePut
			if synced {
				if err := w.Handler.Complete(ctx, complete); err != nil {
					return err
				}
			}
			continue
		}
		if err := w.apply(ctx, e, synced, initial); err != nil {
			return err
		}
	}
}

// apply handles one entry: before the initial values are complete it only
// updates initial; afterwards it calls the Handler.
func (w *Watcher) apply(ctx context.Context, e jetstream.KeyValueEntry, synced bool, initial map[bus.ConfigRef]busv1.TargetConfig) error {
	ref, err := bus.ParseConfigKey(e.Key())
	if err != nil {
		w.Log.Error(err, "ignoring config entry", app.KeyKey, e.Key())
		return nil
	}
	if e.Operation() == jetstream.KeyValueDelete || e.Operation() == jetstream.KeyValuePurge {
		if !synced {
			delete(initial, ref)
			return nil
		}
		return w.Handler.Delete(ctx, ref)
	}
	cfg, err := decode(ref, e.Value())
	if err != nil {
		w.Log.Error(err, "ignoring config entry", app.KeyKey, e.Key())
		return nil
	}
	if !synced {
		initial[ref] = cfg
		return nil
	}
	return w.Handler.Put(ctx, cfg)
}

func decode(ref bus.ConfigRef, b []byte) (busv1.TargetConfig, error) {
	var cfg busv1.TargetConfig
	if err := json.Unmarshal(b, &cfg); err != nil {
		return cfg, fmt.Errorf("decode %s %s: %w", ref.Kind, bus.ConfigKey(ref), err)
	}
	if cfg.Kind != ref.Kind || cfg.Namespace != ref.Namespace || cfg.Name != ref.Name {
		return cfg, fmt.Errorf("decode %s %s: entry names %s %s/%s", ref.Kind, bus.ConfigKey(ref), cfg.Kind, cfg.Namespace, cfg.Name)
	}
	return cfg, nil
}

// Ref returns the config reference of a Target's entry.
func Ref(cfg busv1.TargetConfig) bus.ConfigRef {
	return bus.ConfigRef{Kind: cfg.Kind, Namespace: cfg.Namespace, Name: cfg.Name}
}
