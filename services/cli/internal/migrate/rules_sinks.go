package migrate

import (
	"fmt"

	"go.yaml.in/yaml/v3"
)

// defaultDatabaseKey is the Secret key a databaseRef without key names.
const defaultDatabaseKey = "dsn"

// crossNamespace explains why a Secret in another namespace is kept.
func crossNamespace(ns string) string {
	return fmt.Sprintf("the Secret is in namespace %s, not the sink's; Kollect refuses it unless the operator runs with --allow-cross-namespace-secret-refs, so move the Secret next to the sink", ns)
}

// databaseRefs: postgres|mongodb.databaseRef {name, namespace: <the
// sink's>} → no namespace; no key → key: dsn.
func databaseRefs(o object, _ Index) []Finding {
	var out []Finding
	for _, block := range []string{"postgres", "mongodb"} {
		ref := path(o.root, "spec", block, "databaseRef")
		if ref == nil || ref.Kind != yaml.MappingNode {
			continue
		}
		field := "spec." + block + ".databaseRef"
		if ns := str(ref, "namespace"); ns != "" {
			f := Finding{Field: field + ".namespace", Established: "`databaseRef.namespace`", Canonical: "a databaseRef in the sink's namespace, without namespace"}
			switch {
			case o.namespace == "":
				f.Kept = "the sink has no metadata.namespace, so the namespaces cannot be compared"
			case ns != o.namespace:
				f.Kept = crossNamespace(ns)
			default:
				remove(ref, "namespace")
			}
			out = append(out, f)
		}
		if get(ref, "key") == nil {
			insert(ref, index(ref, "name")/2+1, "key", scalar(defaultDatabaseKey))
			out = append(out, Finding{Field: field + ".key", Established: "a databaseRef without key", Canonical: "`key: dsn` (the established default)"})
		}
	}
	return out
}

// bigQuerySecretRef: bigquery.secretRef → the top-level secretRef.
func bigQuerySecretRef(o object, _ Index) []Finding {
	spec := get(o.root, "spec")
	bq := get(spec, "bigquery")
	if index(bq, "secretRef") < 0 {
		return nil
	}
	f := Finding{Field: "spec.bigquery.secretRef", Established: "`bigquery.secretRef`", Canonical: "`spec.secretRef`"}
	if get(spec, "secretRef") != nil {
		f.Kept = "spec.secretRef is set too; keep one of them"
		return []Finding{f}
	}
	k, v := take(bq, "secretRef")
	if ns := str(v, "namespace"); ns != "" && ns == o.namespace {
		remove(v, "namespace")
	}
	put(spec, index(spec, "bigquery")/2, k, v)
	return []Finding{f}
}

// snapshotBlockTypes are the blocks a snapshot sink's type can be told
// from.
var snapshotBlockTypes = map[string]string{"git": "git", "gitlab": "gitlab"}

// snapshotTypeFromBlock: no spec.type and one family block → type from the
// block, endpoint and pathTemplate moved from the block to spec.
func snapshotTypeFromBlock(o object, _ Index) []Finding {
	spec := get(o.root, "spec")
	if spec == nil || get(spec, "type") != nil {
		return nil
	}
	var blocks []string
	for _, b := range []string{"git", "gitlab", "objectStore"} {
		if get(spec, b) != nil {
			blocks = append(blocks, b)
		}
	}
	if len(blocks) != 1 {
		return nil
	}
	b := blocks[0]
	f := Finding{Field: "spec.type", Established: "no `type`, settings in the `" + b + "` block", Canonical: "`type`, `endpoint` and `pathTemplate` in spec"}
	typ, ok := snapshotBlockTypes[b]
	if !ok {
		f.Kept = "an objectStore block serves both s3 and gcs; set spec.type by hand"
		return []Finding{f}
	}
	insert(spec, 0, "type", scalar(typ))
	block := get(spec, b)
	at := 1
	for _, field := range []string{"endpoint", "pathTemplate"} {
		if index(block, field) < 0 {
			continue
		}
		if get(spec, field) != nil {
			f.Kept = fmt.Sprintf("spec.%s and spec.%s.%s are both set; keep one", field, b, field)
			continue
		}
		k, v := take(block, field)
		put(spec, at, k, v)
		at++
	}
	return []Finding{f}
}

// take removes key from m and returns its key and value nodes (comments
// included), or nils.
func take(m *yaml.Node, key string) (*yaml.Node, *yaml.Node) {
	i := index(m, key)
	if i < 0 {
		return nil, nil
	}
	k, v := m.Content[i], m.Content[i+1]
	m.Content = append(m.Content[:i], m.Content[i+2:]...)
	return k, v
}

// put inserts the key and value nodes at pair position pos of m.
func put(m *yaml.Node, pos int, k, v *yaml.Node) {
	at := min(2*pos, len(m.Content))
	m.Content = append(m.Content[:at], append([]*yaml.Node{k, v}, m.Content[at:]...)...)
}
