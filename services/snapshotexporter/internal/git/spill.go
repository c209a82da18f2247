package git

import (
	"bytes"
	"fmt"
	"io"
	"os"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/storer"
)

// spill holds the blobs a streamed full write rendered in one file on
// disk, uncompressed, one after the other, so that a write of a million
// files holds their offsets, not their bytes; the push's pack reads them
// back one at a time.
type spill struct {
	f    *os.File
	size int64
	at   map[plumbing.Hash]extent
}

// extent is where a blob's bytes are in the spill file.
type extent struct {
	off, n int64
	taken  bool
}

// newSpill creates the spill file in dir ("" for the system's temporary
// folder); the file is removed by close.
func newSpill(dir string) (*spill, error) {
	f, err := os.CreateTemp(dir, "blobs-")
	if err != nil {
		return nil, fmt.Errorf("create the blob file of a full write: %w", err)
	}
	return &spill{f: f, at: map[plumbing.Hash]extent{}}, nil
}

// add appends blob h of data unless the file has it.
func (s *spill) add(h plumbing.Hash, data []byte) error {
	if _, ok := s.at[h]; ok {
		return nil
	}
	if _, err := s.f.Write(data); err != nil {
		return fmt.Errorf("write blob %s to %s: %w", h, s.f.Name(), err)
	}
	s.at[h] = extent{off: s.size, n: int64(len(data))}
	s.size += int64(len(data))
	return nil
}

// take reports whether the file holds blob h and it was not taken before:
// each blob is packed once.
func (s *spill) take(h plumbing.Hash) bool {
	e, ok := s.at[h]
	if !ok || e.taken {
		return false
	}
	e.taken = true
	s.at[h] = e
	return true
}

// close removes the file.
func (s *spill) close() {
	if s == nil {
		return
	}
	_ = s.f.Close()
	_ = os.Remove(s.f.Name())
}

// over returns a store that reads the spilled blobs from the file and every
// other object from st: what the push packs from.
func (s *spill) over(st storer.EncodedObjectStorer) storer.EncodedObjectStorer {
	if s == nil {
		return st
	}
	return spilled{EncodedObjectStorer: st, s: s}
}

// spilled is a store whose spilled blobs come from the spill file.
type spilled struct {
	storer.EncodedObjectStorer
	s *spill
}

// EncodedObject returns blob h from the spill file when it is there, read
// only when the pack writes it.
func (p spilled) EncodedObject(t plumbing.ObjectType, h plumbing.Hash) (plumbing.EncodedObject, error) {
	if e, ok := p.s.at[h]; ok && (t == plumbing.AnyObject || t == plumbing.BlobObject) {
		return &spilledBlob{f: p.s.f, h: h, e: e}, nil
	}
	return p.EncodedObjectStorer.EncodedObject(t, h)
}

// spilledBlob is a blob of the spill file.
type spilledBlob struct {
	f *os.File
	h plumbing.Hash
	e extent
}

func (b *spilledBlob) Hash() plumbing.Hash         { return b.h }
func (b *spilledBlob) Type() plumbing.ObjectType   { return plumbing.BlobObject }
func (b *spilledBlob) SetType(plumbing.ObjectType) {}
func (b *spilledBlob) Size() int64                 { return b.e.n }
func (b *spilledBlob) SetSize(int64)               {}
func (b *spilledBlob) Writer() (io.WriteCloser, error) {
	return nil, fmt.Errorf("blob %s is read-only", b.h)
}

// Reader reads the blob whole: the pack copies it through a
// bytes.Reader's WriteTo, where a file section would cost io.Copy's 32 KiB
// buffer per blob.
func (b *spilledBlob) Reader() (io.ReadCloser, error) {
	data := make([]byte, b.e.n)
	if _, err := b.f.ReadAt(data, b.e.off); err != nil {
		return nil, fmt.Errorf("read blob %s from %s: %w", b.h, b.f.Name(), err)
	}
	return io.NopCloser(bytes.NewReader(data)), nil
}
