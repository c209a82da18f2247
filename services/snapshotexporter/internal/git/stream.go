package git

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"

	"github.com/go-git/go-git/v5/plumbing"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/tree"
)

// StreamsRows makes the runtime hand full writes the rows as a stream
// (sink.RowStreamer) when the layout is perResource: each row's file is
// rendered, hashed once and spilled to disk as it arrives. The document
// and split layouts render whole-inventory files and load the snapshot.
func (s *Sink) StreamsRows() bool { return s.tree.Mode == tree.ModePerResource }

// prepareStreamed plans the perResource full write of snap from its rows
// as they arrive (snap.Rows): a row's file is rendered and hashed once,
// and its blob written to a spill file unless the branch holds it at the
// row's path already; per file only its path and blob are kept. The
// branch's files are looked up by path (the State's and the snapshot's),
// never listed. The export's spill is the caller's to close.
func (s *Sink) prepareStreamed(ctx context.Context, snap sink.Snapshot) (*export, error) {
	env := snap.Envelope
	key := s.modelKey(env)
	delete(s.m.models, key)
	delete(s.m.clean, key)
	l := newLookup(s.m.objects(), s.m.root)
	prev, hasState := s.m.readState(l.file, env)
	if l.err != nil {
		return nil, l.err
	}
	if hasState && env.Revision < prev.Revision && !snap.Replay {
		return nil, nil
	}
	ex := &export{subject: s.message, env: header(env), key: key}
	if snap.Deleted {
		ex.subject, ex.changes = DeleteSubject, removal(l.file, prev, env)
		return ex, nil
	}
	ix, files, sp, err := s.renderRows(ctx, snap, l, prev.FileShards)
	if err != nil {
		return nil, err
	}
	ex.ix, ex.owns, ex.spill = ix, ix.Touches, sp
	var write []change
	for _, f := range files {
		h := plumbing.Hash(f.Blob)
		if cur, ok := l.file(f.Path); !ok || cur != h {
			write = append(write, change{path: f.Path, blob: h})
			if sp.take(h) {
				ex.blobs = append(ex.blobs, h)
			}
		}
	}
	remove := gone(l.file, prev.Files, files)
	if l.err != nil {
		sp.close()
		return nil, l.err
	}
	if hasState && prev.Checksum == env.Checksum && prev.Generation == env.Generation &&
		len(write) == 0 && len(remove) == 0 && samePaths(files, prev.Files) {
		sp.close()
		s.m.models[key] = ix
		s.m.clean[key] = ix.Touches
		return nil, nil
	}
	if !s.prune {
		remove = nil
	}
	edits, err := ix.StateEdits(true)
	if err != nil {
		sp.close()
		return nil, err
	}
	ex.changes = write
	for _, p := range remove {
		ex.changes = append(ex.changes, change{path: p, remove: true})
	}
	for _, e := range edits {
		if _, ok := l.file(e.Path); e.Remove && !ok {
			continue
		}
		ex.changes = append(ex.changes, change{path: e.Path, data: e.Data, remove: e.Remove})
	}
	return ex, nil
}

// renderRows renders snap's rows one at a time into a tree.Builder, and
// spills the blob of each row whose file the branch does not hold at the
// row's path (l) already.
func (s *Sink) renderRows(ctx context.Context, snap sink.Snapshot, l *lookup, prevShards int) (*tree.Index, []tree.Placed, *spill, error) {
	b, err := tree.NewBuilder(s.tree, snap.Envelope)
	if err != nil {
		return nil, nil, nil, err
	}
	sp, err := newSpill(s.m.scratch)
	if err != nil {
		return nil, nil, nil, err
	}
	n := 0
	for raw, err := range snap.Rows(ctx) {
		if err == nil {
			err = s.renderRow(b, sp, l, raw)
		}
		if err != nil {
			sp.close()
			return nil, nil, nil, err
		}
		n++
	}
	if n != snap.Envelope.ItemCount {
		sp.close()
		return nil, nil, nil, fmt.Errorf("the snapshot streamed %d rows, its header says %d", n, snap.Envelope.ItemCount)
	}
	ix, files, err := b.Finish(prevShards)
	if err != nil {
		sp.close()
		return nil, nil, nil, err
	}
	return ix, files, sp, nil
}

// renderRow adds the row of canonical JSON raw to b and spills its blob.
func (s *Sink) renderRow(b *tree.Builder, sp *spill, l *lookup, raw json.RawMessage) error {
	var r busv1.Row
	if err := json.Unmarshal(raw, &r); err != nil {
		return sink.Permanent(fmt.Errorf("decode row: %w", err))
	}
	data, blob, base, err := b.Add(&r)
	if err != nil {
		return err
	}
	h := plumbing.Hash(blob)
	if cur, ok := l.file(base); ok && cur == h {
		return nil
	}
	return sp.add(h, data)
}

// gone returns the paths of prev's files that files (sorted by path) no
// longer have and the branch still holds.
func gone(held held, prev []string, files []tree.Placed) []string {
	if !slices.IsSorted(prev) {
		prev = slices.Sorted(slices.Values(prev))
	}
	var out []string
	i := 0
	for _, p := range prev {
		for i < len(files) && files[i].Path < p {
			i++
		}
		if i < len(files) && files[i].Path == p {
			continue
		}
		if _, ok := held(p); ok {
			out = append(out, p)
		}
	}
	return out
}

// samePaths reports whether files has exactly the paths of prev, in order.
func samePaths(files []tree.Placed, prev []string) bool {
	return slices.EqualFunc(files, prev, func(f tree.Placed, p string) bool { return f.Path == p })
}
