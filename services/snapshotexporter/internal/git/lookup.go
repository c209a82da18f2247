package git

import (
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	"github.com/go-git/go-git/v5/plumbing/object"
)

// held tells the blob at a path of the tip's tree; false when there is no
// file there.
type held func(path string) (plumbing.Hash, bool)

// inMap is held over the files of a walked tree.
func inMap(files map[string]plumbing.Hash) held {
	return func(p string) (plumbing.Hash, bool) {
		h, ok := files[p]
		return h, ok
	}
}

// lookup finds files of the tree at root by path, reading only the folders
// on their way, each once: a streamed write looks up its inventory's
// files, and never lists the rest of the branch (other inventories,
// other clusters).
type lookup struct {
	o    objects
	root plumbing.Hash
	dirs map[plumbing.Hash]map[string]object.TreeEntry
	err  error // the first folder that could not be read
}

func newLookup(o objects, root plumbing.Hash) *lookup {
	return &lookup{o: o, root: root, dirs: map[plumbing.Hash]map[string]object.TreeEntry{}}
}

// file returns the blob at path p.
func (l *lookup) file(p string) (plumbing.Hash, bool) {
	dir := l.root
	for {
		name, rest, nested := strings.Cut(p, "/")
		e, ok := l.entries(dir)[name]
		switch {
		case !ok:
			return plumbing.ZeroHash, false
		case !nested:
			return e.Hash, e.Mode.IsFile()
		case e.Mode != filemode.Dir:
			return plumbing.ZeroHash, false
		}
		dir, p = e.Hash, rest
	}
}

// entries returns the entries of folder h by name, read once.
func (l *lookup) entries(h plumbing.Hash) map[string]object.TreeEntry {
	if es, ok := l.dirs[h]; ok || h.IsZero() {
		return es
	}
	es, err := entries(l.o, h)
	if err != nil && l.err == nil {
		l.err = err
	}
	l.dirs[h] = es
	return es
}
