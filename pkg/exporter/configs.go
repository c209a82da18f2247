package exporter

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// errConfigPending is the transient error of a binding whose SinkConfig the
// runtime has not seen yet, or not at the binding's sink generation.
var errConfigPending = errors.New("sink config not seen yet")

// instance is a sink built from one generation of its SinkConfig. A
// replaced instance is closed when its last user releases it, never under a
// write in progress.
type instance struct {
	generation int64
	sink       sink.Sink
	secrets    map[busv1.NamespacedName][32]byte // digests of the Secrets read to build it
	users      int                               // guarded by configs.mu
	stale      bool                              // replaced or deleted; guarded by configs.mu
}

// release ends one use of in and closes it when it is stale and unused.
func (c *configs) release(ctx context.Context, in *instance) {
	c.mu.Lock()
	in.users--
	done := in.stale && in.users == 0
	c.mu.Unlock()
	if done {
		_ = in.sink.Close(ctx)
	}
}

// retire marks in stale and reports whether it can be closed now; the
// caller holds c.mu.
func retire(in *instance) bool {
	in.stale = true
	return in.users == 0
}

// configs is the runtime's level-based view of the family's SinkConfigs and
// of the inventories, and the sinks built from them.
type configs struct {
	family   busv1.Family
	backends map[string]backend.Backend
	creds    backend.Credentials
	policy   backend.CredentialPolicy

	mu          sync.Mutex
	sinks       map[busv1.SinkRef]busv1.SinkConfig
	inventories map[busv1.NamespacedName]busv1.InventoryConfig
	instances   map[busv1.SinkRef]*instance
	// forget, when set, is called for a sink deleted, seen first (series
	// of type "unknown" recorded while its config was awaited) or whose
	// type or cluster changed: its metric series go.
	forget func(busv1.SinkRef)
}

func newConfigs(f busv1.Family, backends map[string]backend.Backend, creds backend.Credentials, policy backend.CredentialPolicy) *configs {
	return &configs{family: f, backends: backends, creds: creds, policy: policy,
		sinks:       map[busv1.SinkRef]busv1.SinkConfig{},
		inventories: map[busv1.NamespacedName]busv1.InventoryConfig{},
		instances:   map[busv1.SinkRef]*instance{}}
}

// watch follows the config bucket until ctx ends; ready is closed once the
// initial values are applied.
func (c *configs) watch(ctx context.Context, kv jetstream.KeyValue, ready chan<- struct{}) error {
	w, err := kv.WatchFiltered(ctx, []string{bus.ConfigKeyFilter(c.family.SinkKind()),
		bus.ConfigKeyFilter(busv1.KindInventory), bus.ConfigKeyFilter(busv1.KindClusterInventory)})
	if err != nil {
		return fmt.Errorf("watch %s config: %w", c.family, err)
	}
	defer func() { _ = w.Stop() }()
	for {
		select {
		case <-ctx.Done():
			return nil
		case e, ok := <-w.Updates():
			if !ok {
				if ctx.Err() != nil {
					return nil
				}
				return fmt.Errorf("%w: the watch of the %s config ended", errBusLost, c.family)
			}
			if e == nil {
				if ready != nil {
					close(ready)
					ready = nil
				}
				continue
			}
			c.apply(ctx, e)
		}
	}
}

// apply records one entry; a put or delete of a SinkConfig drops the sink
// built from the previous generation.
func (c *configs) apply(ctx context.Context, e jetstream.KeyValueEntry) {
	ref, err := bus.ParseConfigKey(e.Key())
	if err != nil {
		return
	}
	del := e.Operation() != jetstream.KeyValuePut
	c.mu.Lock()
	var stale sink.Sink
	gone := false
	if ref.Kind == c.family.SinkKind() {
		sr := busv1.SinkRef{Family: c.family, Namespace: ref.Namespace, Name: ref.Name}
		var sc busv1.SinkConfig
		old, seen := c.sinks[sr]
		if del || json.Unmarshal(e.Value(), &sc) != nil {
			delete(c.sinks, sr)
			gone = true
		} else {
			c.sinks[sr] = sc
			gone = !seen || old.Type != sc.Type || old.Cluster != sc.Cluster
		}
		if in, ok := c.instances[sr]; ok && (del || in.generation != sc.Generation) {
			delete(c.instances, sr)
			if retire(in) {
				stale = in.sink
			}
		}
	} else {
		inv := busv1.NamespacedName{Namespace: ref.Namespace, Name: ref.Name}
		var ic busv1.InventoryConfig
		if del || json.Unmarshal(e.Value(), &ic) != nil {
			delete(c.inventories, inv)
		} else {
			c.inventories[inv] = ic
		}
	}
	c.mu.Unlock()
	if gone && c.forget != nil {
		c.forget(busv1.SinkRef{Family: c.family, Namespace: ref.Namespace, Name: ref.Name})
	}
	if stale != nil {
		_ = stale.Close(ctx)
	}
}

// bound reports whether the inventory still binds ref; an inventory whose
// config is gone (deleted) keeps its bindings for its final event. behind
// is true when the config does not bind ref but is older than generation,
// the event's: the binding may be new, and the config watch not there yet.
func (c *configs) bound(inv busv1.NamespacedName, ref busv1.SinkRef, generation int64) (bound, behind bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	ic, ok := c.inventories[inv]
	if !ok || slices.ContainsFunc(ic.Bindings, func(b busv1.Binding) bool { return b.SinkRef == ref }) {
		return true, false
	}
	return false, ic.Generation < generation
}

// listed reports whether the inventory's current config lists ref; unlike
// bound, a deleted inventory lists nothing.
func (c *configs) listed(inv busv1.NamespacedName, ref busv1.SinkRef) bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	ic, ok := c.inventories[inv]
	return ok && slices.ContainsFunc(ic.Bindings, func(b busv1.Binding) bool { return b.SinkRef == ref })
}

// sinkConfig returns ref's config when it is at least at generation.
func (c *configs) sinkConfig(ref busv1.SinkRef, generation int64) (busv1.SinkConfig, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc, ok := c.sinks[ref]
	if !ok || sc.Generation < generation {
		return sc, fmt.Errorf("sink %s/%s generation %d: %w", ref.Namespace, ref.Name, generation, errConfigPending)
	}
	return sc, nil
}

// build creates a sink from cfg with its backend, with the digests of the
// Secrets it read; the caller closes it. The backend reads Secrets only
// through the credential policy's guard, checked before any read.
func (c *configs) build(ctx context.Context, cfg busv1.SinkConfig) (sink.Sink, map[busv1.NamespacedName][32]byte, error) {
	b, ok := c.backends[cfg.Type]
	if !ok {
		return nil, nil, sink.Permanent(fmt.Errorf("sink %s/%s: no %s backend for type %q", cfg.Namespace, cfg.Name, c.family, cfg.Type))
	}
	if err := unknownOption(cfg); err != nil {
		return nil, nil, fmt.Errorf("open %s sink %s/%s: %w", cfg.Type, cfg.Namespace, cfg.Name, err)
	}
	rec := &recorder{Credentials: c.creds}
	creds, err := c.policy.For(cfg, rec)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s sink %s/%s: %w", cfg.Type, cfg.Namespace, cfg.Name, err)
	}
	s, err := b.New(ctx, cfg, creds)
	if err != nil {
		return nil, nil, fmt.Errorf("open %s sink %s/%s: %w", cfg.Type, cfg.Namespace, cfg.Name, err)
	}
	return s, rec.read, nil
}

// configOf returns ref's config; before it is seen, one naming ref with
// type "unknown".
func (c *configs) configOf(ref busv1.SinkRef) busv1.SinkConfig {
	if sc, ok := c.lookup(ref); ok {
		return sc
	}
	return busv1.SinkConfig{Family: ref.Family, Namespace: ref.Namespace, Name: ref.Name, Type: "unknown"}
}

// lookup returns ref's config, false before it is seen or after it is deleted.
func (c *configs) lookup(ref busv1.SinkRef) (busv1.SinkConfig, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	sc, ok := c.sinks[ref]
	return sc, ok
}

// sink returns the sink of ref at generation or newer, building it when
// needed, with its config; the caller releases the instance after use.
func (c *configs) sink(ctx context.Context, ref busv1.SinkRef, generation int64) (*instance, busv1.SinkConfig, error) {
	cfg, err := c.sinkConfig(ref, generation)
	if err != nil {
		return nil, cfg, err
	}
	c.mu.Lock()
	if in, ok := c.instances[ref]; ok && in.generation == cfg.Generation {
		in.users++
		c.mu.Unlock()
		return in, cfg, nil
	}
	c.mu.Unlock()
	s, secrets, err := c.build(ctx, cfg)
	if err != nil {
		return nil, cfg, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if cur, ok := c.sinks[ref]; !ok || cur.Generation != cfg.Generation {
		_ = s.Close(ctx)
		return nil, cfg, fmt.Errorf("sink %s/%s changed while opening: %w", ref.Namespace, ref.Name, errConfigPending)
	}
	if in, ok := c.instances[ref]; ok && in.generation == cfg.Generation {
		_ = s.Close(ctx)
		in.users++
		return in, cfg, nil
	}
	in := &instance{generation: cfg.Generation, sink: s, users: 1, secrets: secrets}
	c.instances[ref] = in
	return in, cfg, nil
}

// closeAll closes every cached sink, at shutdown.
func (c *configs) closeAll(ctx context.Context) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for ref, in := range c.instances {
		delete(c.instances, ref)
		if retire(in) {
			_ = in.sink.Close(ctx)
		}
	}
}
