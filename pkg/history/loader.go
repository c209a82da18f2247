package history

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/snapshot"
)

// Loader reads what snapshot events reference: envelopes (inline, a legacy
// envelope object, or a manifest of chunks), manifests, chunks and deltas. It
// verifies every object against its content address and the event's checksum,
// and keeps recently read chunks in a cache bounded by bytes, so consecutive
// revisions of an inventory download only the chunks that changed. A Loader
// is safe for concurrent use.
type Loader struct {
	js     jetstream.JetStream
	cache  *chunkCache
	mu     sync.Mutex
	stores map[string]jetstream.ObjectStore

	// ChunkHits and ChunkMisses count chunk reads served from the cache and
	// from the bus.
	ChunkHits, ChunkMisses atomic.Int64
	// BytesRead counts object bytes read from the bus.
	BytesRead atomic.Int64
}

// DefaultChunkCacheBytes bounds a Loader's chunk cache when NewLoader is
// given zero: about two revisions of a 100k-row inventory.
const DefaultChunkCacheBytes = 64 << 20

// NewLoader returns a Loader with a chunk cache of cacheBytes (zero means
// DefaultChunkCacheBytes, negative disables the cache).
func NewLoader(js jetstream.JetStream, cacheBytes int64) *Loader {
	if cacheBytes == 0 {
		cacheBytes = DefaultChunkCacheBytes
	}
	return &Loader{js: js, cache: newChunkCache(cacheBytes), stores: map[string]jetstream.ObjectStore{}}
}

func (l *Loader) store(ctx context.Context, bucket string) (jetstream.ObjectStore, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if s, ok := l.stores[bucket]; ok {
		return s, nil
	}
	s, err := l.js.ObjectStore(ctx, bucket)
	if err != nil {
		return nil, fmt.Errorf("open object store %s: %w", bucket, err)
	}
	l.stores[bucket] = s
	return s, nil
}

func (l *Loader) get(ctx context.Context, bucket, name string) ([]byte, error) {
	s, err := l.store(ctx, bucket)
	if err != nil {
		return nil, err
	}
	b, err := s.GetBytes(ctx, name)
	if err != nil {
		return nil, fmt.Errorf("read %s/%s: %w", bucket, name, err)
	}
	l.BytesRead.Add(int64(len(b)))
	return b, nil
}

// getAddressed reads a content-addressed object and checks that its sha256
// is digest.
func (l *Loader) getAddressed(ctx context.Context, bucket, name, digest string) ([]byte, error) {
	b, err := l.get(ctx, bucket, name)
	if err != nil {
		return nil, err
	}
	if sum := sha256.Sum256(b); hex.EncodeToString(sum[:]) != digest {
		return nil, fmt.Errorf("read %s/%s: content does not match its digest", bucket, name)
	}
	return b, nil
}

// Manifest reads and verifies the manifest ev references, flat or paged,
// and returns it with every chunk in Chunks.
func (l *Loader) Manifest(ctx context.Context, ev *busv1.SnapshotEvent) (*busv1.Manifest, error) {
	ref := ev.ManifestRef
	if ref == nil {
		return nil, fmt.Errorf("read manifest of %s revision %d: the event references none", ev.Inventory, ev.Revision)
	}
	m, err := l.ManifestAt(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := verifyManifest(m, ev); err != nil {
		return nil, fmt.Errorf("read manifest %s/%s: %w", ref.Bucket, ref.Name, err)
	}
	return m, nil
}

// verifyManifest checks the manifest's chunks against the event's checksum
// and item count.
func verifyManifest(m *busv1.Manifest, ev *busv1.SnapshotEvent) error {
	sums := make([][sha256.Size]byte, len(m.Chunks))
	rows := 0
	for i, c := range m.Chunks {
		b, err := hex.DecodeString(c.Digest)
		if err != nil || len(b) != sha256.Size {
			return fmt.Errorf("chunk %d has an invalid digest", i)
		}
		copy(sums[i][:], b)
		rows += c.Rows
	}
	if sum := snapshot.ChecksumOfDigests(sums); sum != ev.Checksum || m.Checksum != ev.Checksum {
		return fmt.Errorf("checksum %s does not match the event's %s", sum, ev.Checksum)
	}
	if rows != ev.ItemCount {
		return fmt.Errorf("%d rows, the event says %d", rows, ev.ItemCount)
	}
	return nil
}

// Chunk returns the bytes of chunk c of the manifest at manifest (its
// chunks share its owner, bus.ChunkObjectNameIn), from the cache or the
// bus; the caller must not modify them.
func (l *Loader) Chunk(ctx context.Context, manifest *busv1.ObjectRef, c busv1.Chunk) ([]byte, error) {
	if b, ok := l.cache.get(c.Digest); ok {
		l.ChunkHits.Add(1)
		return b, nil
	}
	l.ChunkMisses.Add(1)
	b, err := l.getAddressed(ctx, manifest.Bucket, bus.ChunkObjectNameIn(manifest.Name, c.Digest), c.Digest)
	if err != nil {
		return nil, err
	}
	l.cache.put(c.Digest, b)
	return b, nil
}

// RawRows returns the canonical JSON of every row of ev's snapshot, in
// canonical order, without decoding the rows.
func (l *Loader) RawRows(ctx context.Context, ev *busv1.SnapshotEvent) ([]json.RawMessage, error) {
	if ev.ManifestRef == nil {
		env, err := l.Envelope(ctx, ev)
		if err != nil {
			return nil, err
		}
		out := make([]json.RawMessage, len(env.Items))
		for i := range env.Items {
			if out[i], err = snapshot.Canonical(&env.Items[i]); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	var out []json.RawMessage
	err := l.eachChunk(ctx, ev, func(b []byte) error {
		var rows []json.RawMessage
		err := decodeChunk(b, &rows)
		out = append(out, rows...)
		return err
	})
	return out, err
}

// ChunkRows returns the canonical JSON of each row of chunk c of the
// manifest at manifest, in order: a reader that streams a revision holds
// one chunk's rows at a time.
func (l *Loader) ChunkRows(ctx context.Context, manifest *busv1.ObjectRef, c busv1.Chunk) ([]json.RawMessage, error) {
	b, err := l.Chunk(ctx, manifest, c)
	if err != nil {
		return nil, err
	}
	rows := make([]json.RawMessage, 0, c.Rows)
	if err := decodeChunk(b, &rows); err != nil {
		return nil, fmt.Errorf("decode chunk %s: %w", c.Digest, err)
	}
	if len(rows) != c.Rows {
		return nil, fmt.Errorf("chunk %s holds %d rows, its manifest says %d", c.Digest, len(rows), c.Rows)
	}
	return rows, nil
}

// eachChunk calls f with the bytes of every chunk of ev's manifest, in
// order.
func (l *Loader) eachChunk(ctx context.Context, ev *busv1.SnapshotEvent, f func([]byte) error) error {
	m, err := l.Manifest(ctx, ev)
	if err != nil {
		return err
	}
	for _, c := range m.Chunks {
		b, err := l.Chunk(ctx, ev.ManifestRef, c)
		if err != nil {
			return err
		}
		if err := f(b); err != nil {
			return fmt.Errorf("decode chunk %s: %w", c.Digest, err)
		}
	}
	return nil
}

// decodeChunk decodes a chunk (rows joined by ",") as the JSON list it
// would be in brackets.
func decodeChunk(b []byte, v any) error {
	list := make([]byte, 0, len(b)+2)
	list = append(append(append(list, '['), b...), ']')
	return json.Unmarshal(list, v)
}

// Envelope returns the full envelope of ev: inline, assembled from its
// manifest's chunks, or read from a legacy envelope object. Its
// AttributeTypes are the event's.
func (l *Loader) Envelope(ctx context.Context, ev *busv1.SnapshotEvent) (*busv1.Envelope, error) {
	var env *busv1.Envelope
	var err error
	switch {
	case ev.Envelope != nil:
		// The event, and so its inline envelope, is shared by every
		// binding delivering it at once: the types go on a copy (the rows
		// stay shared, read-only).
		if ev.AttributeTypes == nil {
			return ev.Envelope, nil
		}
		cp := *ev.Envelope
		env = &cp
	case ev.ManifestRef != nil:
		env, err = l.assemble(ctx, ev)
	case ev.EnvelopeRef != nil:
		env, err = l.legacy(ctx, ev)
	default:
		return nil, fmt.Errorf("read envelope of %s revision %d: event has neither envelope nor reference", ev.Inventory, ev.Revision)
	}
	if env != nil {
		env.AttributeTypes = ev.AttributeTypes
	}
	return env, err
}

func (l *Loader) assemble(ctx context.Context, ev *busv1.SnapshotEvent) (*busv1.Envelope, error) {
	items := make([]busv1.Row, 0, ev.ItemCount)
	err := l.eachChunk(ctx, ev, func(b []byte) error {
		var rows []busv1.Row
		list := make([]byte, 0, len(b)+2)
		err := busv1.Unmarshal(append(append(append(list, '['), b...), ']'), &rows)
		items = append(items, rows...)
		return err
	})
	if err != nil {
		return nil, err
	}
	return &busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Checksum: ev.Checksum, PreviousChecksum: ev.PreviousChecksum,
		Revision: ev.Revision, Generation: ev.Generation, Inventory: ev.Inventory, ItemCount: len(items), Items: items}, nil
}

func (l *Loader) legacy(ctx context.Context, ev *busv1.SnapshotEvent) (*busv1.Envelope, error) {
	ref := ev.EnvelopeRef
	b, err := l.get(ctx, ref.Bucket, ref.Name)
	if err != nil {
		return nil, fmt.Errorf("read envelope: %w", err)
	}
	if int64(len(b)) != ref.Size {
		return nil, fmt.Errorf("read envelope %s/%s: %d bytes, reference says %d", ref.Bucket, ref.Name, len(b), ref.Size)
	}
	var env busv1.Envelope
	if err := busv1.Unmarshal(b, &env); err != nil {
		return nil, fmt.Errorf("decode envelope %s/%s: %w", ref.Bucket, ref.Name, err)
	}
	if env.Checksum != ev.Checksum || env.Revision != ev.Revision {
		return nil, fmt.Errorf("read envelope %s/%s: revision %d checksum %s, the event says %d %s",
			ref.Bucket, ref.Name, env.Revision, env.Checksum, ev.Revision, ev.Checksum)
	}
	return &env, nil
}

// Delta returns ev's delta: inline, read from its object, or nil when the
// event has none.
func (l *Loader) Delta(ctx context.Context, ev *busv1.SnapshotEvent) (*busv1.Delta, error) {
	if ev.Delta != nil || ev.DeltaRef == nil {
		return ev.Delta, nil
	}
	var d busv1.Delta
	if err := l.getJSON(ctx, ev.DeltaRef, "delta", &d); err != nil {
		return nil, err
	}
	return &d, nil
}

// digestOf returns the digest part of a content-addressed object name.
func digestOf(name string) string {
	for i := len(name) - 1; i >= 0; i-- {
		if name[i] == '.' {
			return name[i+1:]
		}
	}
	return name
}

// ManifestAt reads the manifest object ref names and, when it is paged, its
// pages, checking each object's content against its name but not against
// an event. The result's Chunks are the snapshot's chunks in either form
// (flat, or flattened from the pages); its Pages are the pages read.
func (l *Loader) ManifestAt(ctx context.Context, ref *busv1.ObjectRef) (*busv1.Manifest, error) {
	m, err := l.Root(ctx, ref)
	if err != nil {
		return nil, err
	}
	if err := l.resolve(ctx, ref, m); err != nil {
		return nil, fmt.Errorf("read manifest %s/%s: %w", ref.Bucket, ref.Name, err)
	}
	return m, nil
}

// getJSON reads a content-addressed object as JSON into v.
func (l *Loader) getJSON(ctx context.Context, ref *busv1.ObjectRef, what string, v any) error {
	b, err := l.getAddressed(ctx, ref.Bucket, ref.Name, digestOf(ref.Name))
	if err != nil {
		return err
	}
	decode := json.Unmarshal
	if _, ok := v.(*busv1.Delta); ok {
		decode = busv1.Unmarshal // exact large integers
	}
	if err := decode(b, v); err != nil {
		return fmt.Errorf("decode %s %s/%s: %w", what, ref.Bucket, ref.Name, err)
	}
	return nil
}
