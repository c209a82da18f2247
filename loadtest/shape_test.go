package loadtest

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// The default shape splits: at least 10 namespaces, a Target per kind in
// each (30 or more, the custom Widget among them), an inventory per
// namespace and one cluster inventory, whose rows are the Widgets'.
func TestShapeSplitsTheLoad(t *testing.T) {
	for _, source := range []string{SourceKube, SourceSim} {
		t.Run(source, func(t *testing.T) {
			c, err := DefaultConfig("1k")
			if err != nil {
				t.Fatal(err)
			}
			c.Kinds = sourceKinds(source)
			var objs []Object
			for i := range c.Objects {
				kind := kindOf(i, c.Kinds)
				objs = append(objs, Object{Kind: kind, Namespace: namespaceOf(i, c), Name: objectName(kind, i)})
			}
			sh := newShape(c.Namespaces, c.Kinds, objs)
			if sh.Namespaces < 10 || sh.Targets < 30 || sh.Inventories != sh.Namespaces || sh.ClusterInventories != 1 {
				t.Fatalf("shape %+v", sh)
			}
			rows := expectedRows(objs)
			widgets := 0
			for _, o := range objs {
				if o.Kind == WidgetKind {
					widgets++
				}
			}
			if rows[clusterInventory] != widgets || sh.Rows != c.Objects+widgets {
				t.Fatalf("cluster inventory %d rows, all %d; want %d and %d", rows[clusterInventory], sh.Rows, widgets, c.Objects+widgets)
			}
			for i := range c.Namespaces {
				inv := busv1.NamespacedName{Namespace: namespaceName(i), Name: InventoryName}
				if d := rows[inv] - c.Objects/c.Namespaces; d < -len(c.Kinds) || d > len(c.Kinds) {
					t.Errorf("%v holds %d rows, want %d give or take a kind's", inv, rows[inv], c.Objects/c.Namespaces)
				}
			}
		})
	}
}

// The resources decode and count as the shape says: every namespace's
// Targets select only their own namespace.
func TestShapeResources(t *testing.T) {
	kinds := sourceKinds(SourceKube)
	got := map[string]int{}
	for _, doc := range strings.Split(shapeResources(10, "1k", kinds, "postgres://x", "http://git/inventory.git"), "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatalf("decode %s: %v", doc, err)
		}
		got[u.GetKind()]++
		if u.GetKind() == "KollectTarget" {
			ns, _, _ := unstructured.NestedStringSlice(u.Object, "spec", "includedNamespaces")
			if diff := cmp.Diff([]string{u.GetNamespace()}, ns); diff != "" {
				t.Errorf("Target %s/%s includedNamespaces (-want +got):\n%s", u.GetNamespace(), u.GetName(), diff)
			}
		}
	}
	want := map[string]int{"ClusterRole": 1, "RoleBinding": 10, "Secret": 11, "KollectSnapshotSink": 11, "KollectDatabaseSink": 11,
		"KollectProfile": 31, "KollectTarget": 30, "KollectInventory": 10, "KollectClusterTarget": 1, "KollectClusterInventory": 1}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("resources (-want +got):\n%s", diff)
	}
}
