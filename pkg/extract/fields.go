package extract

import (
	"maps"
	"slices"
)

// FieldSet is a set of object paths, kept as a tree: what a Profile reads. A path covers the
// whole value under it. Lists are transparent: a path continues into every element, so
// spec.containers.image keeps only image in each container. The zero value is empty.
type FieldSet struct {
	whole    bool
	children map[string]*FieldSet
}

// NewFieldSet returns a set holding paths; an empty path means the whole object.
func NewFieldSet(paths ...[]string) *FieldSet {
	f := &FieldSet{}
	for _, p := range paths {
		f.Insert(p...)
	}
	return f
}

// Insert adds a path; with no elements it makes the set cover the whole value.
func (f *FieldSet) Insert(path ...string) {
	if n := f.node(path...); n != nil {
		n.whole, n.children = true, nil
	}
}

// touch adds path as a node that covers nothing below it, unless it is covered already: the
// redacted view visits it without reading its contents.
func (f *FieldSet) touch(path ...string) { f.node(path...) }

// node returns the node of path, adding the missing ones; nil when a node on the way covers
// the whole value already.
func (f *FieldSet) node(path ...string) *FieldSet {
	n := f
	for _, k := range path {
		if n.whole {
			return nil
		}
		c, ok := n.children[k]
		if !ok {
			if n.children == nil {
				n.children = map[string]*FieldSet{}
			}
			c = &FieldSet{}
			n.children[k] = c
		}
		n = c
	}
	if n.whole {
		return nil
	}
	return n
}

// merge adds o to f, touched nodes included (Union keeps only the covered paths).
func (f *FieldSet) merge(o *FieldSet) {
	if f.whole {
		return
	}
	if o.whole {
		f.whole, f.children = true, nil
		return
	}
	for k, oc := range o.children {
		c, ok := f.children[k]
		if !ok {
			if f.children == nil {
				f.children = map[string]*FieldSet{}
			}
			c = &FieldSet{}
			f.children[k] = c
		}
		c.merge(oc)
	}
}

// Union adds every path of o to f.
func (f *FieldSet) Union(o *FieldSet) {
	for _, p := range o.Paths() {
		f.Insert(p...)
	}
}

// Whole reports whether the set covers the whole object.
func (f *FieldSet) Whole() bool { return f.whole }

// Has reports whether the set reads anything at or under the top-level key k.
func (f *FieldSet) Has(k string) bool {
	_, ok := f.children[k]
	return f.whole || ok
}

// covers reports whether the set reads anything at or under path.
func (f *FieldSet) covers(path ...string) bool {
	n := f
	for _, k := range path {
		if n.whole {
			return true
		}
		c, ok := n.children[k]
		if !ok {
			return false
		}
		n = c
	}
	return true
}

// Paths lists the covered paths in sorted order; the whole object is one empty path.
func (f *FieldSet) Paths() [][]string {
	var out [][]string
	f.paths(nil, &out)
	return out
}

func (f *FieldSet) paths(prefix []string, out *[][]string) {
	if f.whole {
		*out = append(*out, append([]string{}, prefix...))
		return
	}
	for _, k := range slices.Sorted(maps.Keys(f.children)) {
		f.children[k].paths(append(prefix, k), out)
	}
}

// Prune returns obj reduced to the union of sets, for an informer transform that drops what no
// Profile reads before objects are cached. obj is never modified: pruned maps and lists are
// new, kept values are shared, and obj itself comes back when a set covers it whole.
//
// Callers on a hot path pass one precomputed set: several sets are merged on every call.
func Prune(obj map[string]any, sets ...*FieldSet) map[string]any {
	u := &FieldSet{}
	if len(sets) == 1 {
		u = sets[0]
	} else {
		for _, s := range sets {
			u.Union(s)
		}
	}
	if u.whole {
		return obj
	}
	out, _ := u.prune(obj)
	return out.(map[string]any)
}

func (f *FieldSet) prune(v any) (any, bool) {
	if f.whole {
		return v, false
	}
	switch t := v.(type) {
	case map[string]any:
		out := make(map[string]any, min(len(t), len(f.children)))
		changed := false
		for k, c := range f.children {
			if cv, ok := t[k]; ok {
				nv, ch := c.prune(cv)
				out[k] = nv
				changed = changed || ch
			}
		}
		if !changed && len(out) == len(t) {
			return v, false
		}
		return out, true
	case []any:
		return editList(t, func(e any) (any, bool, bool) {
			ne, changed := f.prune(e)
			return ne, true, changed
		})
	}
	return v, false
}

// Child returns the set of what f covers under the top-level key k: f itself when it covers
// the whole value, nil when it covers nothing there (or f is nil).
func (f *FieldSet) Child(k string) *FieldSet {
	if f == nil || f.whole {
		return f
	}
	return f.children[k]
}
