package objectstore_test

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

func TestKeys(t *testing.T) {
	env := busv1.Envelope{Cluster: "prod-eu", Revision: 42, Generation: 5,
		Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "web"}}
	cluster := env
	cluster.Inventory.Namespace = ""
	tests := []struct {
		name  string
		spec  v1alpha1.KollectSnapshotSinkSpec
		pre   string
		env   busv1.Envelope
		key   string
		state string
	}{
		{"the default json key is under the prefix", v1alpha1.KollectSnapshotSinkSpec{}, "exports/", env,
			"exports/inventory/team-a/web.json", "exports/.kollect/state/cluster=prod-eu/ns=team-a/name=web.json"},
		{"a bucket root has no leading slash", v1alpha1.KollectSnapshotSinkSpec{}, "", env,
			"inventory/team-a/web.json", ".kollect/state/cluster=prod-eu/ns=team-a/name=web.json"},
		{"every placeholder renders", v1alpha1.KollectSnapshotSinkSpec{
			PathTemplate:  "{cluster}/{namespace}/{name}/g{generation}{extension}",
			Serialization: &v1alpha1.SnapshotSerialization{Format: "ndjson", Compression: "zstd"}}, "a/b", env,
			"a/b/prod-eu/team-a/web/g5.ndjson.zst", "a/b/.kollect/state/cluster=prod-eu/ns=team-a/name=web.json"},
		{"gzip adds .gz", v1alpha1.KollectSnapshotSinkSpec{
			Serialization: &v1alpha1.SnapshotSerialization{Compression: "gzip"}}, "p", env,
			"p/inventory/team-a/web.json.gz", "p/.kollect/state/cluster=prod-eu/ns=team-a/name=web.json"},
		{"a cluster inventory is written as _cluster", v1alpha1.KollectSnapshotSinkSpec{}, "p", cluster,
			"p/inventory/_cluster/web.json", "p/.kollect/state/cluster=prod-eu/ns=_cluster/name=web.json"},
		{"parquet keys are partitioned by cluster, namespace and name", v1alpha1.KollectSnapshotSinkSpec{
			ObjectStore: &v1alpha1.ObjectStoreSink{Format: "parquet"}}, "lake", env,
			"lake/inventory/part_cluster=prod-eu/part_namespace=team-a/part_inventory=web/revision=42.parquet",
			"lake/inventory/part_cluster=prod-eu/part_namespace=team-a/part_inventory=web/_latest.json"},
		{"parquet of a cluster inventory uses part_namespace=_cluster", v1alpha1.KollectSnapshotSinkSpec{
			Serialization: &v1alpha1.SnapshotSerialization{Format: "parquet", Compression: "zstd"}}, "", cluster,
			"inventory/part_cluster=prod-eu/part_namespace=_cluster/part_inventory=web/revision=42.parquet",
			"inventory/part_cluster=prod-eu/part_namespace=_cluster/part_inventory=web/_latest.json"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			l, err := objectstore.NewLayout(&tt.spec, tt.pre)
			if err != nil {
				t.Fatal(err)
			}
			key := l.DocumentKey(&tt.env)
			if l.Format == objectstore.FormatParquet {
				key = l.ParquetKey(&tt.env)
			}
			if d := cmp.Diff([]string{tt.key, tt.state}, []string{key, l.StateKey(&tt.env)}); d != "" {
				t.Errorf("keys (-want +got):\n%s", d)
			}
		})
	}
}

func TestInvalidLayouts(t *testing.T) {
	ser := func(f, c string) *v1alpha1.SnapshotSerialization {
		return &v1alpha1.SnapshotSerialization{Format: f, Compression: c}
	}
	tests := []struct {
		name string
		spec v1alpha1.KollectSnapshotSinkSpec
	}{
		{"yaml is not an object-store format", v1alpha1.KollectSnapshotSinkSpec{Serialization: ser("yaml", "")}},
		{"an unknown compression is refused", v1alpha1.KollectSnapshotSinkSpec{Serialization: ser("", "lz4")}},
		{"the two format fields must agree", v1alpha1.KollectSnapshotSinkSpec{Serialization: ser("json", ""),
			ObjectStore: &v1alpha1.ObjectStoreSink{Format: "parquet"}}},
		{"hot attributes need parquet", v1alpha1.KollectSnapshotSinkSpec{
			ObjectStore: &v1alpha1.ObjectStoreSink{HotAttributes: []string{"a"}}}},
		{"a hot attribute is listed once", v1alpha1.KollectSnapshotSinkSpec{
			ObjectStore: &v1alpha1.ObjectStoreSink{Format: "parquet", HotAttributes: []string{"a", "a"}}}},
		{"parquet has no pathTemplate", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "{namespace}/{name}",
			Serialization: ser("parquet", "")}},
		{"a pathTemplate needs {name}", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "{namespace}/x.json"}},
		{"a pathTemplate must not climb", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "../{namespace}/{name}"}},
		{"a pathTemplate must not be absolute", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "/{namespace}/{name}"}},
		{"an unknown placeholder is refused", v1alpha1.KollectSnapshotSinkSpec{PathTemplate: "{namespace}/{name}/{uid}"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := objectstore.NewLayout(&tt.spec, "")
			if !sink.IsPermanent(err) {
				t.Fatalf("NewLayout returned %v, want a permanent error", err)
			}
		})
	}
}

func TestPartitionKeysAreNotColumns(t *testing.T) {
	t.Run("no Hive partition key of the parquet folders is a column name", func(t *testing.T) {
		env := busv1.Envelope{Cluster: "prod-eu", Revision: 1, Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "web"}}
		l := objectstore.Layout{Format: "parquet", HotAttributes: []string{"part_cluster", "name", "cluster"}}
		schema, _ := l.ParquetSchema(&env, nil)
		columns := map[string]bool{}
		for _, path := range schema.Columns() {
			columns[strings.Join(path, ".")] = true
		}
		folder := strings.TrimSuffix(l.ParquetFolder(&env), "/")
		segments := strings.Split(folder, "/")[1:]
		if len(segments) != 3 {
			t.Fatalf("folder %s has %d partition segments, want 3", folder, len(segments))
		}
		for _, seg := range segments {
			key, _, ok := strings.Cut(seg, "=")
			if !ok || columns[key] {
				t.Errorf("partition segment %q of %s: want key=value with a key that is no column", seg, folder)
			}
		}
	})
}
