package gitlab

import (
	"context"
	"crypto/sha1" //nolint:gosec // Git's object ids are SHA-1; not used for security
	"encoding/hex"
	"path"
	"slices"
	"strconv"
	"strings"

	"kollect.dev/kollect/pkg/tree"
)

// maxListings is the number of folders listed one by one before the sink
// lists their common ancestor recursively instead.
const maxListings = 16

// remoteTree is what a branch holds at the paths one inventory touches:
// the blob id of each file, from GitLab's tree listing. Contents are never
// downloaded: a file equals a candidate when its blob id is the Git blob
// hash of the candidate's bytes.
type remoteTree struct {
	ids   map[string]string // path -> blob id
	known map[string][]byte // blob id -> bytes of a candidate
}

// listRemote lists, at ref, the folders holding paths.
func (s *Sink) listRemote(ctx context.Context, ref string, paths []string) (*remoteTree, error) {
	rt := &remoteTree{ids: map[string]string{}, known: map[string][]byte{}}
	dirs := parentDirs(paths)
	recursive := false
	if len(dirs) > maxListings {
		dirs, recursive = []string{commonDir(dirs)}, true
	}
	for _, d := range dirs {
		entries, err := s.c.listTree(ctx, d, ref, recursive)
		if err != nil {
			return nil, err
		}
		for _, e := range entries {
			if e.Type == "blob" {
				rt.ids[e.Path] = e.ID
			}
		}
	}
	return rt, nil
}

// has reports whether path is a file on the branch.
func (rt *remoteTree) has(p string) bool {
	_, ok := rt.ids[p]
	return ok
}

// existing is tree.Plan's view of the branch: a file whose blob id is that
// of a candidate's bytes is answered with those bytes; any other present
// file with bytes that equal no candidate (it differs, so it is written).
func (rt *remoteTree) existing(candidates ...[]tree.File) func(string) ([]byte, bool) {
	for _, files := range candidates {
		for _, f := range files {
			rt.known[blobID(f.Data)] = f.Data
		}
	}
	return func(p string) ([]byte, bool) {
		id, ok := rt.ids[p]
		if !ok {
			return nil, false
		}
		if data, ok := rt.known[id]; ok {
			return data, true
		}
		// No rendered file holds a NUL byte, so this equals no candidate.
		return []byte("\x00kollect: remote blob " + id), true
	}
}

// blobID is Git's object id of a blob holding data.
func blobID(data []byte) string {
	h := sha1.New() //nolint:gosec // Git's object id
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return hex.EncodeToString(h.Sum(nil))
}

// parentDirs returns the sorted distinct folders of paths ("" the root).
func parentDirs(paths []string) []string {
	var dirs []string
	for _, p := range paths {
		d := path.Dir(p)
		if d == "." {
			d = ""
		}
		dirs = append(dirs, d)
	}
	slices.Sort(dirs)
	return slices.Compact(dirs)
}

// commonDir returns the deepest folder holding every one of dirs.
func commonDir(dirs []string) string {
	common := strings.Split(dirs[0], "/")
	for _, d := range dirs[1:] {
		segs := strings.Split(d, "/")
		n := 0
		for n < len(common) && n < len(segs) && common[n] == segs[n] {
			n++
		}
		common = common[:n]
	}
	return strings.Join(common, "/")
}
