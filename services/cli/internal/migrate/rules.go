package migrate

import (
	"fmt"
	"strings"

	"go.yaml.in/yaml/v3"
)

// object is one kollect.dev document being checked.
type object struct {
	root                  *yaml.Node // the document's mapping
	kind, namespace, name string
}

// rule finds one family of established spellings in o and rewrites them to
// the canonical ones in place (callers that only detect throw the tree
// away). idx resolves sink names of the folder.
type rule func(o object, idx Index) []Finding

// rules are checked in order on every object of their kind.
var rules = map[string][]rule{
	"KollectTarget":         {targetProfileRef},
	"KollectScope":          {scopeSinkRefs},
	"KollectConnectionTest": {connectionTestSinkRef},
	"KollectDatabaseSink":   {databaseRefs, bigQuerySecretRef},
	"KollectSnapshotSink":   {snapshotTypeFromBlock},
}

// targetProfileRef: profileRef: NAME → profileRef: {name: NAME}.
func targetProfileRef(o object, _ Index) []Finding {
	spec := get(o.root, "spec")
	v := get(spec, "profileRef")
	if v == nil || v.Kind != yaml.ScalarNode {
		return nil
	}
	m := flowMap("name", v.Value)
	m.LineComment = v.LineComment
	replaceKey(spec, "profileRef", "profileRef", m)
	return []Finding{{Field: "spec.profileRef", Established: "`profileRef: NAME`", Canonical: "`profileRef: {name: NAME}`"}}
}

// connectionTestSinkRef: sinkRef: NAME → sinkRef: {<family>SinkRef: NAME}
// when exactly one sink of that name is in the folder.
func connectionTestSinkRef(o object, idx Index) []Finding {
	spec := get(o.root, "spec")
	v := get(spec, "sinkRef")
	if v == nil || v.Kind != yaml.ScalarNode {
		return nil
	}
	f := Finding{Field: "spec.sinkRef", Established: "`sinkRef: NAME`", Canonical: "`sinkRef: {snapshotSinkRef|databaseSinkRef|eventSinkRef: NAME}`"}
	fams := idx.families(o.namespace, v.Value)
	switch {
	case o.namespace == "":
		f.Kept = "the test has no metadata.namespace, so its sink cannot be looked up in the folder"
	case len(fams) == 0:
		f.Kept = fmt.Sprintf("no sink %q in namespace %s in this folder, so its family cannot be told", v.Value, o.namespace)
	case len(fams) > 1:
		f.Kept = fmt.Sprintf("sinks of several families are named %q in this folder", v.Value)
	default:
		m := &yaml.Node{Kind: yaml.MappingNode, Tag: "!!map", Content: []*yaml.Node{scalar(fams[0] + "SinkRef"), scalar(v.Value)}}
		replaceKey(spec, "sinkRef", "sinkRef", m)
	}
	return []Finding{f}
}

// scopeSinkRefs: sinkRefs (any family) → snapshotSinkRefs, databaseSinkRefs
// and eventSinkRefs when every name resolves in the folder. A family
// without a name gets an empty list: sinkRefs allowed only the sinks it
// named, and an absent per-family list would allow them all.
func scopeSinkRefs(o object, idx Index) []Finding {
	spec := get(o.root, "spec")
	names, ok := scalars(get(spec, "sinkRefs"))
	if !ok {
		return nil
	}
	f := Finding{Field: "spec.sinkRefs", Established: "`sinkRefs` (sink names of any family)",
		Canonical: "`snapshotSinkRefs`, `databaseSinkRefs` and `eventSinkRefs`"}
	byFamily := map[string][]string{}
	for _, n := range names {
		fams := idx.families(o.namespace, n)
		if o.namespace == "" || len(fams) == 0 {
			f.Kept = fmt.Sprintf("no sink %q in the Scope's namespace in this folder, so its family cannot be told", n)
			return []Finding{f}
		}
		for _, fam := range fams {
			byFamily[fam] = append(byFamily[fam], n)
		}
	}
	pos := index(spec, "sinkRefs") / 2
	remove(spec, "sinkRefs")
	for _, fam := range Families {
		key := fam + "SinkRefs"
		if list := get(spec, key); list != nil {
			have, _ := scalars(list)
			for _, n := range byFamily[fam] {
				if !contains(have, n) {
					list.Content = append(list.Content, scalar(n))
				}
			}
			continue
		}
		insert(spec, pos, key, flowSeq(byFamily[fam]))
		pos++
	}
	return []Finding{f}
}

func contains(list []string, v string) bool {
	for _, s := range list {
		if s == v {
			return true
		}
	}
	return false
}

// String names o as validate does: "Kind namespace/name".
func (o object) String() string {
	if o.namespace == "" {
		return o.kind + " " + o.name
	}
	return o.kind + " " + o.namespace + "/" + o.name
}

// isKollect reports whether apiVersion is of the kollect.dev group.
func isKollect(apiVersion string) bool {
	return strings.HasPrefix(apiVersion, "kollect.dev/")
}
