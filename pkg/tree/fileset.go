package tree

import (
	"fmt"
	"hash/fnv"
	"slices"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// An inventory's file list lives in its State while it is short, and in
// shard files next to the State once it is long, so that a commit that
// adds or removes one file rewrites one shard (about 256 paths) instead of
// a list of every path (about 5 MB at 100,000 files). The layout:
//
//   - inline: State.Files lists every path (at most inlineMax files);
//   - sharded: State.Files is empty, State.FileShards is a power of two
//     n, and the paths are listed, sorted, one per line, in
//     .kollect/<cluster>/<namespace>/<name>.files/<i>, i the two-digit
//     hex index 00..n-1 of FNV-1a 32 of the path modulo n. Empty shards
//     have no file.
//
// A list keeps its layout while it fits it (inline up to 2*inlineMax files;
// n shards from 64*n to 1024*n files), so that a list that grows and
// shrinks around a threshold does not rewrite every shard each time.
const (
	inlineMax    = 512
	shardTarget  = 256
	shardMin     = 64
	shardMax     = 1024
	maxFileShard = 256
)

// FileSet is an inventory's file list in its State layout. The zero value
// is an empty inline list.
type FileSet struct {
	shards int // 0: inline
	sets   []map[string]struct{}
	n      int
	dirty  map[int]bool
	// relaid is set when the layout changed: every shard is rewritten and
	// shards of the old layout beyond the new count are removed.
	relaid    bool
	oldShards int
}

// NewFileSet returns the list of paths, in the layout of a State that had
// prevShards shards (0 when inline or new) if it still fits, else the
// layout the list's length calls for.
func NewFileSet(paths []string, prevShards int) *FileSet {
	f := &FileSet{shards: prevShards, oldShards: min(max(prevShards, 0), maxFileShard)}
	if prevShards < 0 || prevShards > maxFileShard || prevShards&(prevShards-1) != 0 {
		f.shards = 0 // not a layout this code writes: start anew
	}
	if !fits(f.shards, len(paths)) {
		f.shards = idealShards(len(paths))
		f.relaid = true
	}
	f.sets = make([]map[string]struct{}, max(f.shards, 1))
	for i := range f.sets {
		f.sets[i] = map[string]struct{}{}
	}
	for _, p := range paths {
		f.Add(p)
	}
	f.dirty = nil
	f.relaid = f.relaid || prevShards != f.shards
	return f
}

// fits reports whether n files may stay in a layout of shards shards.
func fits(shards, n int) bool {
	if shards == 0 {
		return n <= 2*inlineMax
	}
	return n >= shardMin*shards && (n <= shardMax*shards || shards == maxFileShard)
}

// idealShards is the layout for n files: inline up to inlineMax, else the
// power of two giving about shardTarget paths a shard.
func idealShards(n int) int {
	if n <= inlineMax {
		return 0
	}
	s := 2
	for s < maxFileShard && s*shardTarget < n {
		s *= 2
	}
	return s
}

// shardOf is the shard of path p among shards.
func shardOf(p string, shards int) int {
	if shards == 0 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(p))
	return int(h.Sum32()%maxFileShard) & (shards - 1) // shards divides maxFileShard
}

// Len is the number of paths.
func (f *FileSet) Len() int { return f.n }

// Shards is the number of shard files (0 when inline).
func (f *FileSet) Shards() int { return f.shards }

// Has reports whether p is listed.
func (f *FileSet) Has(p string) bool {
	if f.sets == nil {
		return false
	}
	_, ok := f.sets[shardOf(p, f.shards)][p]
	return ok
}

// Add lists p.
func (f *FileSet) Add(p string) {
	if f.sets == nil {
		f.sets = []map[string]struct{}{{}}
	}
	i := shardOf(p, f.shards)
	if _, ok := f.sets[i][p]; ok {
		return
	}
	f.sets[i][p] = struct{}{}
	f.n++
	f.touch(i)
}

// Remove unlists p.
func (f *FileSet) Remove(p string) {
	if f.sets == nil {
		return
	}
	i := shardOf(p, f.shards)
	if _, ok := f.sets[i][p]; !ok {
		return
	}
	delete(f.sets[i], p)
	f.n--
	f.touch(i)
}

func (f *FileSet) touch(i int) {
	if f.dirty == nil {
		f.dirty = map[int]bool{}
	}
	f.dirty[i] = true
}

// Paths returns every path, sorted.
func (f *FileSet) Paths() []string {
	out := make([]string, 0, f.n)
	for _, s := range f.sets {
		for p := range s {
			out = append(out, p)
		}
	}
	slices.Sort(out)
	return out
}

// Clone returns an independent copy of f with nothing pending.
func (f *FileSet) Clone() *FileSet {
	c := &FileSet{shards: f.shards, oldShards: f.shards, n: f.n, sets: make([]map[string]struct{}, len(f.sets))}
	for i, s := range f.sets {
		c.sets[i] = make(map[string]struct{}, len(s))
		for p := range s {
			c.sets[i][p] = struct{}{}
		}
	}
	return c
}

// relayout moves to the ideal layout when the list outgrew its own.
func (f *FileSet) relayout() {
	if fits(f.shards, f.n) {
		return
	}
	paths := f.Paths()
	old := f.oldShards
	*f = *NewFileSet(paths, idealShards(len(paths)))
	f.oldShards, f.relaid = old, true
}

// ShardPath is where shard i of the file list of inventory inv of cluster
// lives.
func ShardPath(cluster string, inv busv1.NamespacedName, i int) string {
	return strings.TrimSuffix(StatePath(cluster, inv), ".json") + ".files/" + fmt.Sprintf("%02x", i)
}

// Writes returns the State of env holding f and the shard files to write
// and remove: every shard when all is true or the layout changed, else the
// shards changed since the last Writes. It clears what is pending.
func (f *FileSet) Writes(env busv1.Envelope, all bool) (state File, shards []File, remove []string, err error) {
	f.relayout()
	st := State{Revision: env.Revision, Checksum: env.Checksum, Generation: env.Generation,
		ExportedAt: env.ExportedAt.UTC(), FileShards: f.shards}
	if f.shards == 0 {
		st.Files = f.Paths()
	} else {
		st.FileCount = f.n
	}
	data, err := st.Marshal()
	if err != nil {
		return File{}, nil, nil, err
	}
	state = File{Path: StatePath(env.Cluster, env.Inventory), Data: data}
	all = all || f.relaid
	for i := 0; i < f.shards; i++ {
		if !all && !f.dirty[i] {
			continue
		}
		p := ShardPath(env.Cluster, env.Inventory, i)
		if len(f.sets[i]) == 0 {
			remove = append(remove, p)
			continue
		}
		shards = append(shards, File{Path: p, Data: shardData(f.sets[i])})
	}
	if all {
		for i := f.shards; i < f.oldShards; i++ {
			remove = append(remove, ShardPath(env.Cluster, env.Inventory, i))
		}
	}
	f.dirty, f.relaid, f.oldShards = nil, false, f.shards
	return state, shards, remove, nil
}

// shardData lists a shard's paths, sorted, one per line.
func shardData(set map[string]struct{}) []byte {
	paths := make([]string, 0, len(set))
	size := 0
	for p := range set {
		paths = append(paths, p)
		size += len(p) + 1
	}
	slices.Sort(paths)
	b := make([]byte, 0, size)
	for _, p := range paths {
		b = append(b, p...)
		b = append(b, '\n')
	}
	return b
}

// ParseShard returns the paths a shard file lists.
func ParseShard(data []byte) []string {
	lines := strings.Split(string(data), "\n")
	out := lines[:0]
	for _, l := range lines {
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}
