package tree

import (
	"bytes"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// State is what a tree sink records per inventory next to the files, so it
// can prune the files it wrote before, skip unchanged exports and refuse
// older revisions.
type State struct {
	// Revision of the snapshot the files hold.
	Revision uint64 `json:"revision"`
	// Checksum of that snapshot.
	Checksum string `json:"checksum"`
	// Generation of the inventory at that snapshot.
	Generation int64 `json:"generation"`
	// ExportedAt is the snapshot's export time, so that Unchanged can
	// render a later export of the same content to the same bytes.
	ExportedAt time.Time `json:"exportedAt"`
	// Files are the paths of the inventory's files, sorted; empty when
	// FileShards is set.
	Files []string `json:"files"`
	// FileShards, when set, is the number of shard files listing the
	// paths instead of Files (see FileSet), and FileCount their number.
	// A reader that does not know them sees no files: it rewrites every
	// file and prunes nothing, and loses nothing.
	FileShards int `json:"fileShards,omitempty"`
	FileCount  int `json:"fileCount,omitempty"`
}

// StateOf returns the State of env rendered as files.
func StateOf(env busv1.Envelope, files []File) State {
	st := State{Revision: env.Revision, Checksum: env.Checksum, Generation: env.Generation,
		ExportedAt: env.ExportedAt.UTC(), Files: make([]string, len(files))}
	for i, f := range files {
		st.Files[i] = f.Path
	}
	slices.Sort(st.Files)
	return st
}

// StatePath is where the State of inventory inv of cluster lives:
// .kollect/<cluster>/<namespace, or _cluster for a cluster inventory>/<name>.json,
// each segment sanitised like a placeholder value.
func StatePath(cluster string, inv busv1.NamespacedName) string {
	return stateDir + "/" + Sanitize(cluster) + "/" + namespaceSegment(inv.Namespace) + "/" + Sanitize(inv.Name) + ".json"
}

// Marshal encodes s as indented JSON with a trailing newline.
func (s State) Marshal() ([]byte, error) {
	if s.Files == nil {
		s.Files = []string{}
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetIndent("", "  ")
	enc.SetEscapeHTML(false)
	if err := enc.Encode(s); err != nil {
		return nil, fmt.Errorf("encode tree state: %w", err)
	}
	return buf.Bytes(), nil
}

// ParseState decodes a State written by Marshal.
func ParseState(data []byte) (State, error) {
	var s State
	if err := json.Unmarshal(data, &s); err != nil {
		return State{}, fmt.Errorf("decode tree state: %w", err)
	}
	return s, nil
}

// Plan compares the previous State and the tree's current content with the
// new files. write holds the files that are new or whose bytes changed;
// remove holds the paths of prev.Files that are not in files and still
// exist, sorted. existing reports a path's current bytes; nil means an
// empty tree.
func Plan(prev State, existing func(path string) ([]byte, bool), files []File) (write []File, remove []string) {
	if existing == nil {
		existing = func(string) ([]byte, bool) { return nil, false }
	}
	keep := make(map[string]bool, len(files))
	for _, f := range files {
		keep[f.Path] = true
		if old, ok := existing(f.Path); !ok || !bytes.Equal(old, f.Data) {
			write = append(write, f)
		}
	}
	for _, p := range prev.Files {
		if keep[p] {
			continue
		}
		if _, ok := existing(p); ok {
			remove = append(remove, p)
		}
	}
	slices.Sort(remove)
	remove = slices.Compact(remove)
	return write, remove
}

// Unchanged reports whether exporting env by s would change nothing that
// matters: prev holds the same checksum and generation, and env rendered
// with prev's revision and export time yields exactly the files the tree
// holds. A tree sink then skips the export (no commit), so the periodic
// re-export of an unchanged inventory leaves no trace.
func Unchanged(prev State, s Spec, env busv1.Envelope, existing func(path string) ([]byte, bool)) (bool, error) {
	if prev.Checksum != env.Checksum || prev.Generation != env.Generation {
		return false, nil
	}
	env.Revision, env.ExportedAt = prev.Revision, prev.ExportedAt
	files, err := Render(s, env)
	if err != nil {
		return false, err
	}
	if len(files) != len(prev.Files) {
		return false, nil
	}
	for i, f := range files {
		if f.Path != prev.Files[i] {
			return false, nil
		}
	}
	write, remove := Plan(prev, existing, files)
	return len(write) == 0 && len(remove) == 0, nil
}

// WithShardFiles returns s with Files read from its shard files when its
// file list is sharded (FileShards set); read returns a file's bytes and
// whether it exists (an empty shard has no file).
func (s State) WithShardFiles(cluster string, inv busv1.NamespacedName, read func(path string) ([]byte, bool, error)) (State, error) {
	for i := 0; i < s.FileShards; i++ {
		data, ok, err := read(ShardPath(cluster, inv, i))
		if err != nil {
			return s, fmt.Errorf("read the file list of %s: %w", inv, err)
		}
		if ok {
			s.Files = append(s.Files, ParseShard(data)...)
		}
	}
	slices.Sort(s.Files)
	return s, nil
}
