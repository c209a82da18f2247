package git

import (
	"errors"
	"fmt"
	"io"
	"slices"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/plumbing/storer"
	"kollect.dev/kollect/pkg/sink"
)

// objects reads and writes Git objects of the mirror directly: exports
// build trees and commits without a worktree, so a 10,000-file tree is
// never checked out.
type objects struct {
	s storer.EncodedObjectStorer
}

// files lists the regular files of the tree at h (zero: none) with their
// blob hashes, keyed by path.
func (o objects) files(h plumbing.Hash) (map[string]plumbing.Hash, error) {
	out := map[string]plumbing.Hash{}
	if h.IsZero() {
		return out, nil
	}
	t, err := object.GetTree(o.s, h)
	if err != nil {
		return nil, fmt.Errorf("read tree %s: %w", h, err)
	}
	w := object.NewTreeWalker(t, true, nil)
	defer w.Close()
	for {
		name, e, err := w.Next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return nil, fmt.Errorf("walk tree %s: %w", h, err)
		}
		if e.Mode.IsFile() {
			out[name] = e.Hash
		}
	}
}

// maxStateBlob is the most bytes read of a blob of the mirror: only the
// State files and their shards are read (a few MiB at most for an
// inventory of 100,000 files); a larger one is not Kollect's, and the
// State is then treated as unreadable (and rewritten).
const maxStateBlob = 16 << 20

// blob returns the content of blob h, at most maxStateBlob bytes.
func (o objects) blob(h plumbing.Hash) ([]byte, error) {
	b, err := object.GetBlob(o.s, h)
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	r, err := b.Reader()
	if err != nil {
		return nil, fmt.Errorf("read blob %s: %w", h, err)
	}
	defer func() { _ = r.Close() }()
	if b.Size > maxStateBlob {
		return nil, sink.Permanent(fmt.Errorf("read blob %s: %d bytes, %s of %d bytes: %w", h, b.Size, tooLargeText, maxStateBlob, ErrAnswerTooLarge))
	}
	return io.ReadAll(io.LimitReader(r, maxStateBlob))
}

// write stores an object of type t with data and returns its hash.
func (o objects) write(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	obj := o.s.NewEncodedObject()
	obj.SetType(t)
	w, err := obj.Writer()
	if err == nil {
		_, err = w.Write(data)
		if cerr := w.Close(); err == nil {
			err = cerr
		}
	}
	if err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode %s: %w", t, err)
	}
	return o.s.SetEncodedObject(obj)
}

// change is one path's new content, or its removal; a change with Blob
// and no data points the path at an existing blob (a moved file).
type change struct {
	path   string
	data   []byte
	blob   plumbing.Hash
	remove bool
}

// apply returns the hash of the tree at base (zero: empty) with changes
// applied, and adds to created every object it stored that base does not
// hold (the objects a push must send). Unchanged subtrees keep their hash
// and are not read; folders left empty vanish. The changes are visited in
// path order through an index, never copied, so that a full write of many
// files holds them once.
func (o objects) apply(base plumbing.Hash, changes []change, created *[]plumbing.Hash) (plumbing.Hash, error) {
	order := make([]int32, len(changes))
	for i := range order {
		order[i] = int32(i)
	}
	slices.SortStableFunc(order, func(a, b int32) int { return strings.Compare(changes[a].path, changes[b].path) })
	h, empty, err := o.update(base, changes, order, 0, created)
	if err == nil && empty && h != base {
		*created = append(*created, h) // the root of a commit, even empty, is sent
	}
	return h, err
}

// update applies the changes of all named by order, sorted by path, whose
// paths below the folder at base start at byte off.
func (o objects) update(base plumbing.Hash, all []change, order []int32, off int, created *[]plumbing.Hash) (plumbing.Hash, bool, error) {
	entries := map[string]object.TreeEntry{}
	if !base.IsZero() {
		t, err := object.GetTree(o.s, base)
		if err != nil {
			return plumbing.ZeroHash, false, fmt.Errorf("read tree %s: %w", base, err)
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	for i := 0; i < len(order); {
		c := &all[order[i]]
		dir, _, nested := strings.Cut(c.path[off:], "/")
		if nested {
			// The changes below dir follow one another in path order.
			prefix := c.path[:off+len(dir)+1]
			j := i + 1
			for j < len(order) && strings.HasPrefix(all[order[j]].path, prefix) {
				j++
			}
			if err := o.updateDir(entries, dir, all, order[i:j], len(prefix), created); err != nil {
				return plumbing.ZeroHash, false, err
			}
			i = j
			continue
		}
		i++
		if c.remove {
			delete(entries, dir)
			continue
		}
		h := c.blob
		if c.data != nil {
			h = plumbing.ComputeHash(plumbing.BlobObject, c.data)
			if e, ok := entries[dir]; !ok || e.Hash != h || !e.Mode.IsFile() {
				if _, err := o.write(plumbing.BlobObject, c.data); err != nil {
					return plumbing.ZeroHash, false, err
				}
				*created = append(*created, h)
			}
		}
		entries[dir] = object.TreeEntry{Name: dir, Mode: filemode.Regular, Hash: h}
	}
	h, err := o.writeTree(entries)
	if err == nil && h != base && len(entries) > 0 {
		*created = append(*created, h)
	}
	return h, len(entries) == 0, err
}

// updateDir applies the changes below folder dir of entries.
func (o objects) updateDir(entries map[string]object.TreeEntry, dir string, all []change, order []int32, off int, created *[]plumbing.Hash) error {
	var subBase plumbing.Hash
	if e, ok := entries[dir]; ok && e.Mode == filemode.Dir {
		subBase = e.Hash
	}
	h, empty, err := o.update(subBase, all, order, off, created)
	if err != nil {
		return err
	}
	if empty {
		delete(entries, dir)
	} else {
		entries[dir] = object.TreeEntry{Name: dir, Mode: filemode.Dir, Hash: h}
	}
	return nil
}

// writeTree stores a tree of entries in Git's order: by name, a folder
// compared as if its name ended with "/".
func (o objects) writeTree(entries map[string]object.TreeEntry) (plumbing.Hash, error) {
	t := &object.Tree{Entries: make([]object.TreeEntry, 0, len(entries))}
	for _, e := range entries {
		t.Entries = append(t.Entries, e)
	}
	key := func(e object.TreeEntry) string {
		if e.Mode == filemode.Dir {
			return e.Name + "/"
		}
		return e.Name
	}
	sort.Slice(t.Entries, func(i, j int) bool { return key(t.Entries[i]) < key(t.Entries[j]) })
	obj := o.s.NewEncodedObject()
	if err := t.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode tree: %w", err)
	}
	return o.s.SetEncodedObject(obj)
}

// commit stores a commit of tree on parent (zero: a root commit).
func (o objects) commit(tree, parent plumbing.Hash, author object.Signature, message string) (plumbing.Hash, error) {
	c := &object.Commit{Author: author, Committer: author, Message: message, TreeHash: tree}
	if !parent.IsZero() {
		c.ParentHashes = []plumbing.Hash{parent}
	}
	obj := o.s.NewEncodedObject()
	if err := c.Encode(obj); err != nil {
		return plumbing.ZeroHash, fmt.Errorf("encode commit: %w", err)
	}
	return o.s.SetEncodedObject(obj)
}
