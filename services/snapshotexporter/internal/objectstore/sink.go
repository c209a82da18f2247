package objectstore

import (
	"context"
	"errors"
	"fmt"
	"sync/atomic"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Sink writes snapshots to a Bucket in a Layout. It implements sink.Sink,
// sink.Checker and sink.DriftChecker; it is safe for concurrent writes of
// different inventories.
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
// checksum already stored (unless s.Repair), and removes the inventory's
// objects when s.Deleted. The state put is conditional on the state read
// (fencing): a writer that lost the race to a newer revision gives way.
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
	cur, err := readState(ctx, k.bucket, stateKey)
	if err != nil {
		return fmt.Errorf("read state %s: %w", stateKey, err)
	}
	if cur.found && !s.Replay && cur.Revision > env.Revision {
		return nil // older than what the bucket holds
	}
	if s.Deleted {
		return k.remove(ctx, s, cur.State, cur.found, stateKey)
	}
	if cur.found && !s.Repair && cur.Revision == env.Revision && cur.Checksum == env.Checksum {
		return nil
	}
	obj, put, err := k.object(ctx, s, cur)
	if err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	if !cur.found && k.layout.Format == FormatParquet {
		if err := k.dropLegacyPointer(ctx, env); err != nil {
			return err
		}
	}
	data, won, err := k.putData(ctx, s, &obj, put, cur, stateKey)
	if err != nil || !won {
		return err
	}
	err = writeState(ctx, k.bucket, stateKey, stateOf(env, &obj, data), cur)
	if errors.Is(err, ErrPrecondition) {
		return k.lost(ctx, s, stateKey)
	}
	if err != nil {
		return fmt.Errorf("put state %s: %w", stateKey, err)
	}
	return nil
}

// putData puts the data object. When it overwrites the object the state
// names (JSON and NDJSON), the put is conditional on the version the state
// recorded, so that a writer that read an older state cannot replace a
// newer writer's object: it then re-reads the state and, when another
// writer has written it, gives way (won false) or retries. When the state
// is unchanged the object was changed by hand and is replaced. A repair
// puts unconditionally.
func (k *Sink) putData(ctx context.Context, s sink.Snapshot, obj *Object, put putFunc, cur stored, stateKey string) (Info, bool, error) {
	var cond Condition
	if cur.found && !s.Repair && cur.Key == obj.Key && cur.Version != "" {
		cond.Version = cur.Version
	}
	data, err := put(cond)
	if errors.Is(err, ErrPrecondition) {
		now, rerr := readState(ctx, k.bucket, stateKey)
		if rerr != nil {
			return data, false, fmt.Errorf("read state %s: %w", stateKey, rerr)
		}
		if now.exists != cur.exists || now.object.Version != cur.object.Version {
			return data, false, k.gaveWay(s, stateKey, now)
		}
		data, err = put(Condition{})
	}
	if err != nil {
		return data, false, fmt.Errorf("put %s: %w", obj.Key, err)
	}
	return data, true, nil
}

// putFunc puts the data object on condition cond.
type putFunc func(cond Condition) (Info, error)

// object returns the data object s renders to and how to put it: from the
// rows streamed as the bucket uploads them (see StreamPutter) when s is not
// loaded and the sink streams, else encoded whole (loading s first when it
// holds the header only).
func (k *Sink) object(ctx context.Context, s sink.Snapshot, cur stored) (Object, putFunc, error) {
	if !s.Loaded() && k.streams() {
		obj, body := k.layout.streamObject(ctx, s)
		sp := k.bucket.(StreamPutter)
		return obj, func(cond Condition) (Info, error) {
			r := body()
			defer r.Close()
			return sp.PutStream(ctx, obj.Key, r, obj.ContentType, "", cond)
		}, nil
	}
	s, err := s.WithFull(ctx)
	if err != nil {
		return Object{}, nil, err
	}
	obj, err := k.layout.Encode(&s.Envelope, cur.ColumnTypes)
	if err != nil {
		return obj, nil, sink.Permanent(err)
	}
	return obj, func(cond Condition) (Info, error) {
		return k.bucket.Put(ctx, obj.Key, obj.Body, obj.ContentType, "", cond)
	}, nil
}

// lost handles a state put that failed its precondition: another writer
// wrote the state since it was read.
func (k *Sink) lost(ctx context.Context, s sink.Snapshot, stateKey string) error {
	now, err := readState(ctx, k.bucket, stateKey)
	if err != nil {
		return fmt.Errorf("read state %s: %w", stateKey, err)
	}
	return k.gaveWay(s, stateKey, now)
}

// gaveWay returns nil when the state another writer wrote meanwhile (now)
// holds a newer revision than s, or s itself, so that s is superseded or
// done, and otherwise a transient error: the retry reads the new state.
func (k *Sink) gaveWay(s sink.Snapshot, stateKey string, now stored) error {
	env := &s.Envelope
	if now.found && !s.Replay && (now.Revision > env.Revision ||
		now.Revision == env.Revision && now.Checksum == env.Checksum) {
		return nil
	}
	return fmt.Errorf("state %s changed while writing revision %d (another writer): %w", stateKey,
		env.Revision, ErrPrecondition)
}

// dropLegacyPointer deletes the pointer of env's inventory in the layout
// before the part_ keys, before the first file of the new folder is
// written (so that a failure is retried with it): it would name a stale
// file forever. The files it names stay as history. It reads first, so
// that a bucket without the old layout needs no delete permission.
func (k *Sink) dropLegacyPointer(ctx context.Context, env *busv1.Envelope) error {
	legacy := k.layout.LegacyParquetFolder(env) + LatestName
	_, found, err := k.bucket.Stat(ctx, legacy)
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
