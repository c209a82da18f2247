package extract

import (
	"errors"
	"slices"

	"k8s.io/client-go/util/jsonpath"
)

func isUnsupported(err error) bool { return errors.Is(err, errUnsupported) }

// fields adds the paths a compiled JSONPath reads: its field steps, with indexes and [*]
// looking through lists, plus what filters compare; ".*" and ".." need everything below.
func (jp *jsonPath) fields(fs *FieldSet) {
	var path []string
	for _, s := range jp.steps {
		switch s.kind {
		case stepField:
			path = append(path, s.name)
		case stepFilter:
			fs.Insert(append(slices.Clone(path), s.filter.path...)...)
		case stepAll, stepDescend:
			fs.Insert(path...)
			return
		}
	}
	fs.Insert(path...)
}

// fields adds the static prefix of a fallback path: its leading fields (indexes look through
// lists); everything below the first union or filter is needed whole.
func (f *fallbackPath) fields(fs *FieldSet) {
	fs.Insert(f.prefix...)
}

// fallbackPrefix computes the static prefix from a parsed client-go tree.
func fallbackPrefix(nodes []jsonpath.Node) []string {
	var path []string
	for _, n := range nodes {
		switch n := n.(type) {
		case *jsonpath.FieldNode:
			path = append(path, n.Value)
		case *jsonpath.ArrayNode:
		case *jsonpath.ListNode:
			return append(path, fallbackPrefix(n.Nodes)...)
		default:
			return path
		}
	}
	return path
}
