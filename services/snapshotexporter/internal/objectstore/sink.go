package objectstore

import (
	"context"
	"fmt"
	"sync/atomic"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Sink writes snapshots to a Bucket in a Layout. It implements sink.Sink
// and sink.Checker; it is safe for concurrent writes of different
// inventories.
type Sink struct {
	bucket Bucket
	layout Layout
	name   string
	closer func() error
	ready  atomic.Bool
}

// NewSink returns a sink writing to b in layout l. name locates the bucket
// in error messages (never a credential); close, when not nil, releases the
// bucket's client.
func NewSink(b Bucket, l Layout, name string, close func() error) *Sink {
	return &Sink{bucket: b, layout: l, name: name, closer: close}
}

// Check probes the bucket when it implements Prober (creating it in
// provisioning mode ensure), else lists the prefix.
func (k *Sink) Check(ctx context.Context) error {
	if p, ok := k.bucket.(Prober); ok {
		if err := p.Probe(ctx); err != nil {
			return fmt.Errorf("check %s: %w", k.name, err)
		}
		k.ready.Store(true)
		return nil
	}
	if _, err := k.bucket.List(ctx, k.layout.join(".kollect/")); err != nil {
		return fmt.Errorf("check %s: %w", k.name, err)
	}
	return nil
}

// Close releases the bucket's client.
func (k *Sink) Close(context.Context) error {
	if k.closer == nil {
		return nil
	}
	return k.closer()
}

// Write makes the objects of s.Envelope's inventory hold s: it ignores an
// older revision (unless s.Replay), writes nothing for the revision and
// checksum already stored, and removes the inventory's objects when
// s.Deleted.
func (k *Sink) Write(ctx context.Context, s sink.Snapshot) error {
	env := &s.Envelope
	if err := k.write(ctx, s); err != nil {
		return fmt.Errorf("write %s revision %d to %s: %w", env.Inventory, env.Revision, k.name, err)
	}
	return nil
}

func (k *Sink) write(ctx context.Context, s sink.Snapshot) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	if !k.ready.Load() {
		if p, ok := k.bucket.(Prober); ok {
			if err := p.Probe(ctx); err != nil {
				return err
			}
		}
		k.ready.Store(true)
	}
	env := &s.Envelope
	stateKey := k.layout.StateKey(env)
	cur, found, err := readState(ctx, k.bucket, stateKey)
	if err != nil {
		return fmt.Errorf("read state %s: %w", stateKey, err)
	}
	if found && !s.Replay && cur.Revision > env.Revision {
		return nil // older than what the bucket holds
	}
	if s.Deleted {
		return k.remove(ctx, s, cur, found, stateKey)
	}
	if found && cur.Revision == env.Revision && cur.Checksum == env.Checksum {
		return nil
	}
	obj, err := k.layout.Encode(env, cur.ColumnTypes)
	if err != nil {
		return sink.Permanent(err)
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !found && k.layout.Format == FormatParquet {
		if err := k.dropLegacyPointer(ctx, env); err != nil {
			return err
		}
	}
	if err := k.bucket.Put(ctx, obj.Key, obj.Body, obj.ContentType, ""); err != nil {
		return fmt.Errorf("put %s: %w", obj.Key, err)
	}
	if err := writeState(ctx, k.bucket, stateKey, stateOf(env, &obj)); err != nil {
		return fmt.Errorf("put state %s: %w", stateKey, err)
	}
	return nil
}

// dropLegacyPointer deletes the pointer of env's inventory in the layout
// before the part_ keys, before the first file of the new folder is
// written (so that a failure is retried with it): it would name a stale
// file forever. The files it names stay as history. It reads first, so
// that a bucket without the old layout needs no delete permission.
func (k *Sink) dropLegacyPointer(ctx context.Context, env *busv1.Envelope) error {
	legacy := k.layout.LegacyParquetFolder(env) + LatestName
	_, found, err := k.bucket.Get(ctx, legacy)
	if err == nil && found {
		err = k.bucket.Delete(ctx, legacy)
	}
	if err != nil {
		return fmt.Errorf("remove the pointer %s of the previous layout: %w", legacy, err)
	}
	return nil
}

// remove deletes the inventory's objects: for Parquet every object of its
// folder and of its folder in the previous layout (the pointer last), else
// the object the state names, the object the snapshot renders to, and the
// state.
func (k *Sink) remove(ctx context.Context, s sink.Snapshot, cur State, found bool, stateKey string) error {
	var keys []string
	if k.layout.Format == FormatParquet {
		for _, folder := range []string{k.layout.LegacyParquetFolder(&s.Envelope), k.layout.ParquetFolder(&s.Envelope)} {
			listed, err := k.bucket.List(ctx, folder)
			if err != nil {
				return fmt.Errorf("list %s: %w", folder, err)
			}
			for _, key := range listed {
				if key != stateKey {
					keys = append(keys, key)
				}
			}
		}
	} else {
		if found && cur.Key != "" {
			keys = append(keys, cur.Key)
		}
		if key := k.layout.DocumentKey(&s.Envelope); !found || key != cur.Key {
			keys = append(keys, key)
		}
	}
	for _, key := range append(keys, stateKey) {
		if err := k.bucket.Delete(ctx, key); err != nil {
			return fmt.Errorf("delete %s: %w", key, err)
		}
	}
	return nil
}
