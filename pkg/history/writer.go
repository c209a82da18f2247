package history

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"sync"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/snapshot"
)

// Writer stores content-addressed objects (chunks, manifests, deltas) in the
// envelope object store. An object already stored, or written before by
// this Writer, is not written again.
type Writer struct {
	obs jetstream.ObjectStore

	mu       sync.Mutex
	known    map[string]struct{}
	deleting map[string]chan struct{} // closed when the deletion is done
}

// NewWriter opens the envelope object store and lists the objects it holds.
func NewWriter(ctx context.Context, js jetstream.JetStream) (*Writer, error) {
	obs, err := js.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		return nil, fmt.Errorf("open object store %s: %w", bus.ObjectStoreEnvelopes, err)
	}
	w := &Writer{obs: obs, known: map[string]struct{}{}, deleting: map[string]chan struct{}{}}
	return w, w.Refresh(ctx)
}

// Refresh re-reads the names of the stored objects, after objects were
// removed behind the Writer's back (garbage collection, a purge).
func (w *Writer) Refresh(ctx context.Context) error {
	infos, err := bus.ListObjects(ctx, w.obs, bus.ListAttempt)
	if err != nil {
		return fmt.Errorf("list object store %s: %w", bus.ObjectStoreEnvelopes, err)
	}
	known := make(map[string]struct{}, len(infos))
	for _, in := range infos {
		known[in.Name] = struct{}{}
	}
	w.mu.Lock()
	w.known = known
	w.mu.Unlock()
	return nil
}

// Forget drops names from the known set, after they were deleted behind
// the Writer's back: the next Put of one writes it again.
func (w *Writer) Forget(names ...string) {
	w.mu.Lock()
	for _, n := range names {
		delete(w.known, n)
	}
	w.mu.Unlock()
}

// Delete deletes names in the background and returns at once: a Put of one
// of them meanwhile waits for its deletion and writes it again. done is
// called with the number deleted when all are; a Delete while another
// runs is refused (false).
func (w *Writer) Delete(ctx context.Context, names []string, done func(deleted int, err error)) bool {
	w.mu.Lock()
	if len(w.deleting) > 0 {
		w.mu.Unlock()
		return false
	}
	for _, n := range names {
		delete(w.known, n)
		w.deleting[n] = make(chan struct{})
	}
	w.mu.Unlock()
	go func() {
		deleted := 0
		var first error
		for _, n := range names {
			err := w.obs.Delete(ctx, n)
			if err == nil || errors.Is(err, jetstream.ErrObjectNotFound) {
				deleted++
			} else if first == nil {
				first = fmt.Errorf("delete %s/%s: %w", bus.ObjectStoreEnvelopes, n, err)
			}
			w.mu.Lock()
			close(w.deleting[n])
			delete(w.deleting, n)
			w.mu.Unlock()
		}
		if done != nil {
			done(deleted, first)
		}
	}()
	return true
}

// Put stores data under name unless it is already stored, and returns its
// reference.
func (w *Writer) Put(ctx context.Context, name string, data []byte) (*busv1.ObjectRef, int64, error) {
	ref := &busv1.ObjectRef{Bucket: bus.ObjectStoreEnvelopes, Name: name, Size: int64(len(data))}
	w.mu.Lock()
	_, ok := w.known[name]
	wait := w.deleting[name]
	w.mu.Unlock()
	if ok {
		return ref, 0, nil
	}
	if wait != nil { // written again while being collected: after the delete
		select {
		case <-wait:
		case <-ctx.Done():
			return nil, 0, ctx.Err()
		}
	}
	if _, err := w.obs.PutBytes(ctx, name, data); err != nil {
		return nil, 0, fmt.Errorf("store %s/%s: %w", bus.ObjectStoreEnvelopes, name, err)
	}
	w.mu.Lock()
	w.known[name] = struct{}{}
	w.mu.Unlock()
	return ref, int64(len(data)), nil
}

// PutChunk stores one chunk's bytes; c.Digest must be their sha256 hex.
func (w *Writer) PutChunk(ctx context.Context, c busv1.Chunk, data []byte) (int64, error) {
	_, n, err := w.Put(ctx, bus.ChunkObjectName(c.Digest), data)
	return n, err
}

// PutJSON stores v as JSON under name(digest of the JSON).
func (w *Writer) PutJSON(ctx context.Context, name func(string) string, v any) (*busv1.ObjectRef, int64, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, 0, fmt.Errorf("encode %T: %w", v, err)
	}
	return w.PutAddressed(ctx, name, bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
}

// PutAddressed stores b under name(sha256 hex of b).
func (w *Writer) PutAddressed(ctx context.Context, name func(string) string, b []byte) (*busv1.ObjectRef, int64, error) {
	sum := sha256.Sum256(b)
	return w.Put(ctx, name(hex.EncodeToString(sum[:])), b)
}

// Has reports whether name is known to be stored.
func (w *Writer) Has(name string) bool {
	w.mu.Lock()
	defer w.mu.Unlock()
	_, ok := w.known[name]
	return ok
}

// Source is a snapshot's rows in canonical order, as sort keys and
// canonical JSON (snapshot.SortKey, snapshot.Canonical).
type Source func(yield func(sortKey string, raw []byte) error) error

// WriteManifest chunks the rows of src, stores every chunk not yet stored
// and the manifest, and returns the manifest's reference with the checksum
// and item count. written counts the bytes actually written.
func (w *Writer) WriteManifest(ctx context.Context, inv busv1.NamespacedName, src Source) (ref *busv1.ObjectRef, m *busv1.Manifest, written int64, err error) {
	c := snapshot.Chunker{Emit: func(ch busv1.Chunk, data []byte) error {
		n, err := w.PutChunk(ctx, ch, data)
		written += n
		return err
	}}
	if err := src(c.Add); err != nil {
		return nil, nil, written, err
	}
	chunks, sum, err := c.Finish()
	if err != nil {
		return nil, nil, written, err
	}
	m = &busv1.Manifest{Inventory: inv, Checksum: sum, Chunks: chunks}
	for _, ch := range chunks {
		m.ItemCount += ch.Rows
		m.Bytes += ch.Bytes
	}
	ends := c.PageEnds()
	ref, n, err := w.PutManifest(ctx, bus.ObjectOwner{}, m, func(i int) bool { return ends[i] })
	return ref, m, written + n, err
}

// RowsSource returns the Source of rows, which it sorts in place.
func RowsSource(rows []busv1.Row) Source {
	snapshot.Sort(rows)
	return func(yield func(string, []byte) error) error {
		for i := range rows {
			raw, err := snapshot.Canonical(&rows[i])
			if err != nil {
				return err
			}
			if err := yield(snapshot.SortKey(&rows[i]), raw); err != nil {
				return err
			}
		}
		return nil
	}
}
