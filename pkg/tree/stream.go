package tree

import (
	"fmt"
	"slices"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// Builder renders a perResource tree one row at a time, as a full
// snapshot's rows arrive in canonical order, so that no more than one row
// and its file are held at once: per row it keeps only the row's identity,
// its path before the collision suffixes and its file's blob, what Finish
// needs to place the files and build the Index. Its files and Index equal
// NewIndex's for the same rows.
type Builder struct {
	spec  Spec
	head  busv1.Envelope
	last  busv1.Row // the previous row's identity and source, for the order
	keys  []busv1.RowKey
	bases []string
	blobs []BlobID
}

// NewBuilder starts the perResource tree of the snapshot whose header is
// head (its Items are not read). An invalid s, or another mode, is a
// sink.Permanent error.
func NewBuilder(s Spec, head busv1.Envelope) (*Builder, error) {
	s, err := s.withDefaults()
	if err != nil {
		return nil, err
	}
	if s.Mode != ModePerResource {
		return nil, sink.Permanent(fmt.Errorf("render rows one at a time: layout.mode %s is not %s", s.Mode, ModePerResource))
	}
	head.Items = nil
	return &Builder{spec: s, head: head}, nil
}

// Add renders row r, which must come after the previous row in canonical
// order (else a sink.Permanent error), and returns its file's content and
// blob; its path is known once Finish has seen every row. base is the path
// the file has unless another row collides with it.
func (b *Builder) Add(r *busv1.Row) (data []byte, blob BlobID, base string, err error) {
	if len(b.keys) > 0 && busv1.CompareRows(b.last, *r) >= 0 {
		return nil, blob, "", sink.Permanent(fmt.Errorf("render row %s/%s %s: it does not follow %s/%s %s in canonical order",
			r.TargetNamespace, r.TargetName, r.UID, b.last.TargetNamespace, b.last.TargetName, b.last.UID))
	}
	base, err = b.spec.rowPath(&b.head, r)
	if err != nil {
		return nil, blob, "", sink.Permanent(err)
	}
	data, err = encodeWith(b.spec.Format, b.spec.content(r), jsonToYAML)
	if err != nil {
		return nil, blob, "", fmt.Errorf("encode %s: %w", base, err)
	}
	blob = BlobOf(data)
	b.last = busv1.Row{TargetNamespace: r.TargetNamespace, TargetName: r.TargetName, Namespace: r.Namespace, Name: r.Name, UID: r.UID}
	b.keys = append(b.keys, r.Key())
	b.bases = append(b.bases, base)
	b.blobs = append(b.blobs, blob)
	return data, blob, base, nil
}

// Placed is a file of a Builder's tree: its path and its content's blob.
type Placed struct {
	Path string
	Blob BlobID
}

// Finish places the files of every row added, and returns them sorted by
// path with the tree's Index, whose file list keeps the layout of a State
// of prevShards shards where it fits.
func (b *Builder) Finish(prevShards int) (*Index, []Placed, error) {
	paths := b.spec.placeRows(slices.Clone(b.bases), b.keys, nil)
	files := make([]Placed, len(paths))
	for i, p := range paths {
		if err := checkPath(p); err != nil {
			return nil, nil, sink.Permanent(fmt.Errorf("render snapshot files: %w", err))
		}
		files[i] = Placed{Path: p, Blob: b.blobs[i]}
	}
	slices.SortFunc(files, func(x, y Placed) int { return strings.Compare(x.Path, y.Path) })
	ix := newIndex(b.spec, b.head, b.keys, b.bases, paths, b.blobs, prevShards)
	b.keys, b.bases, b.blobs = nil, nil, nil
	return ix, files, nil
}
