package extract

import (
	"errors"
	"strings"

	"k8s.io/client-go/util/jsonpath"
)

// fallbackPath evaluates JSONPath outside the compiled subset (slices, unions, comparison and
// existence filters) with client-go's implementation, parsed once. Paths that would make
// client-go iterate a map (".*", "..") are rejected here: its map order is random and rows
// must not depend on it; the compiled evaluator covers those forms deterministically.
type fallbackPath struct {
	jp     *jsonpath.JSONPath
	multi  bool
	prefix []string // static prefix, for fields
}

func compileFallback(text string) (*fallbackPath, error) {
	tmpl := text
	if strings.HasPrefix(text, "$") {
		tmpl = "{" + text + "}"
	}
	parsed, err := jsonpath.Parse("path", tmpl)
	if err != nil {
		return nil, err
	}
	if len(parsed.Root.Nodes) != 1 || parsed.Root.Nodes[0].Type() != jsonpath.NodeList {
		return nil, errors.New(`a kubectl-style path must be exactly one "{...}" expression, without text or range`)
	}
	nodes := parsed.Root.Nodes[0].(*jsonpath.ListNode).Nodes
	multi, err := checkFallbackNodes(nodes, true)
	if err != nil {
		return nil, err
	}
	jp := jsonpath.New("path").AllowMissingKeys(true)
	if err := jp.Parse(tmpl); err != nil {
		return nil, err
	}
	return &fallbackPath{jp: jp, multi: multi, prefix: fallbackPrefix(nodes)}, nil
}

// checkFallbackNodes rejects nodes whose evaluation is order-dependent or stateful (range and
// end mutate the shared JSONPath, which must stay safe for concurrent use) and reports whether
// the path can match several values.
func checkFallbackNodes(nodes []jsonpath.Node, top bool) (multi bool, err error) {
	for _, n := range nodes {
		switch n := n.(type) {
		case *jsonpath.WildcardNode, *jsonpath.RecursiveNode:
			return false, errors.New(`".*" and ".." combine only with fields, indexes, [*] and ==/!= filters against a literal; use a cel: expression for more`)
		case *jsonpath.IdentifierNode:
			return false, errors.New("range, end and other identifiers are not supported in an attribute path")
		case *jsonpath.TextNode:
			if top {
				return false, errors.New("text is not supported in an attribute path")
			}
		case *jsonpath.ArrayNode:
			multi = multi || !n.Params[1].Derived
		case *jsonpath.UnionNode:
			multi = true
			for _, l := range n.Nodes {
				if _, err := checkFallbackNodes(l.Nodes, false); err != nil {
					return false, err
				}
			}
		case *jsonpath.FilterNode:
			multi = true
			for _, l := range []*jsonpath.ListNode{n.Left, n.Right} {
				if _, err := checkFallbackNodes(l.Nodes, false); err != nil {
					return false, err
				}
			}
		case *jsonpath.ListNode:
			m, err := checkFallbackNodes(n.Nodes, top)
			if err != nil {
				return false, err
			}
			multi = multi || m
		}
	}
	return multi, nil
}

// all returns every match; ok is false when client-go reported an error.
func (f *fallbackPath) all(obj any) ([]any, bool) {
	res, err := f.jp.FindResults(obj)
	if err != nil || len(res) != 1 {
		return nil, false
	}
	out := make([]any, 0, len(res[0]))
	for _, r := range res[0] {
		out = append(out, r.Interface())
	}
	return out, true
}

func (f *fallbackPath) single(obj any) (any, bool) {
	res, ok := f.all(obj)
	if !ok || len(res) != 1 || res[0] == nil {
		return nil, false
	}
	return res[0], true
}
