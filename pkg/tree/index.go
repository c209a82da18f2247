package tree

import (
	"crypto/sha1" //nolint:gosec // Git names blobs by SHA-1; not a security use.
	"slices"
	"strconv"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// BlobID is the Git object name of a file's content: SHA-1 of
// "blob <size>\x00" and the bytes.
type BlobID [20]byte

// BlobOf returns the BlobID of data.
func BlobOf(data []byte) BlobID {
	h := sha1.New() //nolint:gosec // Git's object names.
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	var id BlobID
	copy(id[:], h.Sum(nil))
	return id
}

// Edit is one path's change in a tree: Remove, or write Data, or (Data
// nil) point the path at the existing blob Blob (a file that moved).
type Edit struct {
	Path   string
	Data   []byte
	Blob   BlobID
	Remove bool
}

// Index is what a perResource tree holds for one inventory, kept in memory
// so that a delta renders and changes only the rows it names: per row its
// path before and after the collision suffixes and its blob, and the file
// list of the State. Build it with NewIndex from a full snapshot; Plan and
// Commit apply deltas. Not safe for concurrent use.
type Index struct {
	spec Spec
	head busv1.Envelope // the header of the snapshot it holds; Items nil
	rows map[busv1.RowKey]*indexRow
	// groups are the rows by path before suffixes: rows sharing one
	// collide and are told apart by their uid.
	groups map[string][]busv1.RowKey
	owner  map[string]busv1.RowKey // path → row
	files  *FileSet
	// irregular is set when some path depends on rows outside its group
	// (see groupPaths): deltas are then refused and the caller renders the
	// whole snapshot.
	irregular bool
}

type indexRow struct {
	base, path string
	blob       BlobID
}

// NewIndex renders env's rows laid out by s in perResource mode, and
// returns the files, sorted by path, with their Index; the file list keeps
// the layout of a State of prevShards shards where it fits. The files
// equal Render's.
func NewIndex(s Spec, env busv1.Envelope, prevShards int) (*Index, []File, error) {
	files, err := Render(s, env)
	if err != nil {
		return nil, nil, err
	}
	s, _ = s.withDefaults()
	rows := slices.Clone(env.Items)
	slices.SortFunc(rows, busv1.CompareRows)
	bases := make([]string, len(rows))
	for i := range rows {
		if bases[i], err = s.rowPath(&env, &rows[i]); err != nil {
			return nil, nil, err
		}
	}
	keys := make([]busv1.RowKey, len(rows))
	for i := range rows {
		keys[i] = rows[i].Key()
	}
	paths := s.placeRows(slices.Clone(bases), keys, nil)
	data := make(map[string][]byte, len(files))
	for _, f := range files {
		data[f.Path] = f.Data
	}
	blobs := make([]BlobID, len(rows))
	for i, p := range paths {
		blobs[i] = BlobOf(data[p])
	}
	return newIndex(s, env, keys, bases, paths, blobs, prevShards), files, nil
}

// newIndex is the Index of the rows of head, by their keys in canonical
// order, with their paths
// before (bases) and after the collision suffixes and their files' blobs.
func newIndex(s Spec, head busv1.Envelope, keys []busv1.RowKey, bases, paths []string, blobs []BlobID, prevShards int) *Index {
	head.Items = nil
	ix := &Index{spec: s, head: head, rows: make(map[busv1.RowKey]*indexRow, len(keys)),
		groups: map[string][]busv1.RowKey{}, owner: make(map[string]busv1.RowKey, len(keys))}
	for i, k := range keys {
		ix.rows[k] = &indexRow{base: bases[i], path: paths[i], blob: blobs[i]}
		ix.groups[bases[i]] = append(ix.groups[bases[i]], k)
		ix.owner[paths[i]] = k
	}
	for base, keys := range ix.groups {
		got, ok := ix.groupPaths(base, keys)
		for i, k := range keys {
			if !ok || got[i] != ix.rows[k].path {
				ix.irregular = true
			}
		}
	}
	names := slices.Clone(paths)
	slices.Sort(names)
	ix.files = NewFileSet(names, prevShards)
	return ix
}

// Revision and Checksum are those of the snapshot the index holds.
func (ix *Index) Revision() uint64 { return ix.head.Revision }
func (ix *Index) Checksum() string { return ix.head.Checksum }

// Len is the number of rows.
func (ix *Index) Len() int { return len(ix.rows) }

// Paths returns the paths of the inventory's files, sorted.
func (ix *Index) Paths() []string { return ix.files.Paths() }

// groupPaths returns the paths of a group's rows as Render's rowPaths
// would if no other row were involved: the base alone, else each with its
// uid, then those still equal with their key hash; false when that is not
// enough (the caller renders everything).
func (ix *Index) groupPaths(base string, keys []busv1.RowKey) ([]string, bool) {
	if len(keys) == 1 {
		return []string{base}, true
	}
	ext := ix.spec.Extension()
	paths := make([]string, len(keys))
	for i, k := range keys {
		paths[i] = withSuffix(base, ext, Sanitize(k.UID))
	}
	count := map[string]int{}
	for _, p := range paths {
		count[p]++
	}
	for i, p := range paths {
		if count[p] > 1 {
			k := keys[i]
			paths[i] = withSuffix(p, ext, keyHash(k))
		}
	}
	seen := map[string]bool{}
	for _, p := range paths {
		if seen[p] {
			return nil, false
		}
		seen[p] = true
	}
	return paths, true
}

// Update is a delta planned on an Index: the edits of its files, applied
// to the Index by Commit once they are stored.
type Update struct {
	// Edits are the row files' changes; the State's come from Commit's
	// caller via StateEdits.
	Edits []Edit
	head  busv1.Envelope
	rows  map[busv1.RowKey]*indexRow // nil: removed
}

// Plan renders the rows of delta d, whose result has header head, and
// returns the edits that turn the index's files into the result's. It
// returns false when the delta cannot be applied alone (the index holds
// another revision, the paths depend on the generation that changed, or a
// collision reaches beyond the rows involved): render the whole snapshot
// then.
func (ix *Index) Plan(head busv1.Envelope, d *busv1.Delta) (*Update, bool, error) {
	if ix.irregular || d.BaseRevision != ix.head.Revision || d.BaseChecksum != ix.head.Checksum ||
		head.Cluster != ix.head.Cluster || head.Inventory != ix.head.Inventory ||
		head.Generation != ix.head.Generation && strings.Contains(ix.spec.ResourceTemplate, "{generation}") {
		return nil, false, nil
	}
	u := &Update{head: head, rows: map[busv1.RowKey]*indexRow{}}
	u.head.Items = nil
	data := map[busv1.RowKey][]byte{}
	affected := map[string]bool{}
	for _, k := range d.Deletes {
		if r, ok := ix.rows[k]; ok {
			u.rows[k] = nil
			affected[r.base] = true
		}
	}
	for i := range d.Upserts {
		r := &d.Upserts[i]
		base, err := ix.spec.rowPath(&head, r)
		if err != nil {
			return nil, false, err
		}
		b, err := encodeWith(ix.spec.Format, ix.spec.content(r), jsonToYAML)
		if err != nil {
			return nil, false, err
		}
		k := r.Key()
		if old, ok := ix.rows[k]; ok {
			affected[old.base] = true
		}
		u.rows[k], data[k] = &indexRow{base: base, blob: BlobOf(b)}, b
		affected[base] = true
	}
	if !ix.placeGroups(u, affected) {
		return nil, false, nil
	}
	u.Edits = ix.edits(u, data)
	return u, true, nil
}

// placeGroups sets the path of every row of the affected groups in u, the
// rows of those groups that u does not change included; false when a path
// would collide with a row outside them.
func (ix *Index) placeGroups(u *Update, affected map[string]bool) bool {
	arriving := map[string][]busv1.RowKey{} // base → rows u puts there
	for k, nr := range u.rows {
		if nr != nil {
			arriving[nr.base] = append(arriving[nr.base], k)
		}
	}
	claimed := map[string]busv1.RowKey{}
	for base := range affected {
		var keys []busv1.RowKey
		for _, k := range ix.groups[base] {
			if _, changed := u.rows[k]; !changed {
				keys = append(keys, k) // stays; rows u changes come from arriving
			}
		}
		keys = append(keys, arriving[base]...)
		if len(keys) == 0 {
			continue
		}
		slices.SortFunc(keys, compareKeys)
		paths, ok := ix.groupPaths(base, keys)
		if !ok {
			return false
		}
		for i, k := range keys {
			if other, taken := claimed[paths[i]]; taken && other != k {
				return false
			}
			claimed[paths[i]] = k
			if owner, held := ix.owner[paths[i]]; held && owner != k && !affected[ix.rows[owner].base] {
				return false
			}
			nr, changed := u.rows[k]
			if !changed {
				old := ix.rows[k]
				nr = &indexRow{base: old.base, blob: old.blob}
				u.rows[k] = nr
			}
			nr.path = paths[i]
		}
	}
	return true
}

// compareKeys orders row keys as their rows' canonical order would within
// one group of equal paths: the Target, then the uid.
func compareKeys(a, b busv1.RowKey) int {
	if c := strings.Compare(a.TargetNamespace, b.TargetNamespace); c != 0 {
		return c
	}
	if c := strings.Compare(a.TargetName, b.TargetName); c != 0 {
		return c
	}
	return strings.Compare(a.UID, b.UID)
}

// edits lists the file changes of u: a row's file written where its
// content or path changed (moved content points at its blob), and the
// paths no row holds any more removed.
func (ix *Index) edits(u *Update, data map[busv1.RowKey][]byte) []Edit {
	var out []Edit
	released := map[string]bool{}
	claimed := map[string]bool{}
	for k, nr := range u.rows {
		if old, ok := ix.rows[k]; ok && (nr == nil || old.path != nr.path) {
			released[old.path] = true
		}
		if nr == nil {
			continue
		}
		claimed[nr.path] = true
		if old, ok := ix.rows[k]; ok && old.path == nr.path && old.blob == nr.blob {
			continue
		}
		out = append(out, Edit{Path: nr.path, Data: data[k], Blob: nr.blob})
	}
	for p := range released {
		if !claimed[p] {
			out = append(out, Edit{Path: p, Remove: true})
		}
	}
	slices.SortFunc(out, func(a, b Edit) int { return strings.Compare(a.Path, b.Path) })
	return out
}

// Commit applies u to the index and returns the edits of the State and its
// file list. Call it once u's edits are stored.
func (ix *Index) Commit(u *Update) ([]Edit, error) {
	for k, nr := range u.rows {
		if old, ok := ix.rows[k]; ok {
			ix.groups[old.base] = slices.DeleteFunc(ix.groups[old.base], func(o busv1.RowKey) bool { return o == k })
			if len(ix.groups[old.base]) == 0 {
				delete(ix.groups, old.base)
			}
			if ix.owner[old.path] == k {
				delete(ix.owner, old.path)
				if nr == nil || nr.path != old.path {
					ix.files.Remove(old.path)
				}
			}
			delete(ix.rows, k)
		}
		if nr != nil {
			ix.rows[k] = nr
		}
	}
	for k, nr := range u.rows {
		if nr != nil {
			ix.groups[nr.base] = append(ix.groups[nr.base], k)
			ix.owner[nr.path] = k
			ix.files.Add(nr.path)
		}
	}
	ix.head = u.head
	return ix.StateEdits(false)
}

// StateEdits returns the edits that write the index's State: the State
// file and its changed shards, or every shard when all is set.
func (ix *Index) StateEdits(all bool) ([]Edit, error) {
	state, shards, remove, err := ix.files.Writes(ix.head, all)
	if err != nil {
		return nil, err
	}
	out := make([]Edit, 0, len(shards)+len(remove)+1)
	out = append(out, Edit{Path: state.Path, Data: state.Data})
	for _, f := range shards {
		out = append(out, Edit{Path: f.Path, Data: f.Data})
	}
	for _, p := range remove {
		out = append(out, Edit{Path: p, Remove: true})
	}
	return out, nil
}

// Touches reports whether path p is one of the index's files, its State or
// a shard of its file list.
func (ix *Index) Touches(p string) bool {
	st := StatePath(ix.head.Cluster, ix.head.Inventory)
	return p == st || strings.HasPrefix(p, strings.TrimSuffix(st, ".json")+".files/") || ix.files.Has(p)
}
