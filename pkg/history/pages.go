package history

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// PutManifest stores m, whose Chunks list the snapshot's chunks, and returns
// its reference and the bytes actually written. pageEnd(i) says whether
// chunk i ends a page (snapshot.PageEnd of its last row). When the chunks
// make more than one page, every page not yet stored is stored and the
// manifest is a root listing the pages (busv1.Manifest); otherwise it is
// stored flat. m is not modified.
func (w *Writer) PutManifest(ctx context.Context, owner bus.ObjectOwner, m *busv1.Manifest, pageEnd func(i int) bool) (*busv1.ObjectRef, int64, error) {
	pages := splitPages(m.Chunks, pageEnd)
	if len(pages) <= 1 {
		return w.PutAddressed(ctx, owner.Names(bus.ManifestObjectName), m.AppendJSON(nil))
	}
	root := *m
	root.Chunks, root.Pages = nil, make([]busv1.Page, 0, len(pages))
	var written int64
	for _, chunks := range pages {
		pg := busv1.ManifestPage{Chunks: chunks}
		ref, n, err := w.PutAddressed(ctx, owner.Names(bus.PageObjectName), pg.AppendJSON(nil))
		written += n
		if err != nil {
			return nil, written, err
		}
		p := busv1.Page{Digest: digestOf(ref.Name), Size: ref.Size, Chunks: len(chunks)}
		for _, c := range chunks {
			p.Rows += c.Rows
			p.Bytes += c.Bytes
		}
		root.Pages = append(root.Pages, p)
	}
	ref, n, err := w.PutAddressed(ctx, owner.Names(bus.ManifestObjectName), root.AppendJSON(nil))
	return ref, written + n, err
}

// splitPages cuts chunks into pages after every chunk pageEnd reports, and
// after the last.
func splitPages(chunks []busv1.Chunk, pageEnd func(int) bool) [][]busv1.Chunk {
	var out [][]busv1.Chunk
	start := 0
	for i := range chunks {
		if i == len(chunks)-1 || pageEnd(i) {
			out = append(out, chunks[start:i+1])
			start = i + 1
		}
	}
	return out
}

// Root reads the manifest object ref names as stored, checking its content
// against its name: a paged manifest's Chunks are empty (see ManifestAt).
func (l *Loader) Root(ctx context.Context, ref *busv1.ObjectRef) (*busv1.Manifest, error) {
	var m busv1.Manifest
	return &m, l.getJSON(ctx, ref, "manifest", &m)
}

// Page returns the chunks of page p of the paged manifest manifest (its
// pages share its owner, bus.PageObjectNameIn), from the cache or the bus,
// checked against p.
func (l *Loader) Page(ctx context.Context, manifest *busv1.ObjectRef, p busv1.Page) ([]busv1.Chunk, error) {
	bucket := manifest.Bucket
	key := bus.PageObjectNameIn(manifest.Name, p.Digest)
	b, ok := l.cache.get(key)
	if !ok {
		var err error
		if b, err = l.getAddressed(ctx, bucket, key, p.Digest); err != nil {
			return nil, err
		}
		l.cache.put(key, b)
	}
	var pg busv1.ManifestPage
	if err := json.Unmarshal(b, &pg); err != nil {
		return nil, fmt.Errorf("decode page %s/%s: %w", bucket, key, err)
	}
	rows := 0
	for _, c := range pg.Chunks {
		rows += c.Rows
	}
	if len(pg.Chunks) != p.Chunks || rows != p.Rows {
		return nil, fmt.Errorf("read page %s/%s: %d chunks of %d rows, its manifest says %d of %d",
			bucket, key, len(pg.Chunks), rows, p.Chunks, p.Rows)
	}
	return pg.Chunks, nil
}

// resolve fills in the Chunks of a paged manifest from its pages.
func (l *Loader) resolve(ctx context.Context, manifest *busv1.ObjectRef, m *busv1.Manifest) error {
	if len(m.Pages) == 0 {
		return nil
	}
	n := 0
	for _, p := range m.Pages {
		n += p.Chunks
	}
	if len(m.Chunks) > 0 {
		return errors.New("the manifest has both chunks and pages")
	}
	m.Chunks = make([]busv1.Chunk, 0, n)
	for _, p := range m.Pages {
		chunks, err := l.Page(ctx, manifest, p)
		if err != nil {
			return err
		}
		m.Chunks = append(m.Chunks, chunks...)
	}
	return nil
}
