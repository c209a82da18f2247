package migrate

import "go.yaml.in/yaml/v3"

// Families are the sink families, in the order of the Scope's lists.
var Families = []string{"snapshot", "database", "event"}

// sinkKinds maps a sink kind to its family.
var sinkKinds = map[string]string{
	"KollectSnapshotSink": "snapshot",
	"KollectDatabaseSink": "database",
	"KollectEventSink":    "event",
}

// Index holds the sinks of a folder: "namespace/name" → families.
type Index map[string][]string

// add records o when it is a sink.
func (idx Index) add(o object) {
	fam, ok := sinkKinds[o.kind]
	if !ok || o.name == "" {
		return
	}
	key := o.namespace + "/" + o.name
	if !contains(idx[key], fam) {
		idx[key] = append(idx[key], fam)
	}
}

// families returns the families of the sinks called name in namespace, in
// Families order.
func (idx Index) families(namespace, name string) []string {
	var out []string
	for _, f := range Families {
		if contains(idx[namespace+"/"+name], f) {
			out = append(out, f)
		}
	}
	return out
}

// objectOf returns doc as a kollect.dev object, or false.
func objectOf(doc *yaml.Node) (object, bool) {
	if doc == nil || doc.Kind != yaml.DocumentNode || len(doc.Content) == 0 {
		return object{}, false
	}
	root := doc.Content[0]
	if root.Kind != yaml.MappingNode || !isKollect(str(root, "apiVersion")) {
		return object{}, false
	}
	md := get(root, "metadata")
	return object{root: root, kind: str(root, "kind"), namespace: str(md, "namespace"), name: str(md, "name")}, true
}
