package s3

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

var sqlBlock = regexp.MustCompile("(?s)```sql\n(.*?)```")

// docQueries returns the ```sql blocks of the page.
func docQueries(t *testing.T, page string) []string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, page))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, m := range sqlBlock.FindAllSubmatch(md, -1) {
		out = append(out, string(m[1]))
	}
	return out
}

// lakeRow is a row of the query fixture: a pod with the example's three hot
// attributes.
func lakeRow(name, image string, replicas, cpu float64) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "deployments", Namespace: "team-a", Name: name,
		UID: "uid-" + name, Group: "apps", Version: "v1", Kind: "Deployment",
		Attributes: map[string]any{"image": image, "replicas": replicas, "cpu": cpu}}
}

// TestDocQueries writes two inventories with the page's inventory-lake sink
// to the S3 server, copies the bucket to a local folder, and runs the
// page's DuckDB queries on it with DuckDB: an independent reader, with and
// without Hive partitioning. Whole and fractional cpu values sit in
// different files, and batch ends empty.
func TestDocQueries(t *testing.T) {
	db := findDuckDB(t)
	p := startPeer(t)
	var spec v1alpha1.KollectSnapshotSinkSpec
	for _, o := range sinktest.DocObjects[v1alpha1.KollectSnapshotSinkSpec](t, "docs/sinks/s3.md", "KollectSnapshotSink") {
		if o.Kind == "KollectSnapshotSink" && o.Metadata.Name == "inventory-lake" {
			spec = o.Spec
		}
	}
	if !strings.HasSuffix(spec.Endpoint, "/data-lake/kollect") {
		t.Fatalf("the page's inventory-lake sink writes to %q, the queries read s3://data-lake/kollect", spec.Endpoint)
	}
	spec.Endpoint = p.srv.Endpoint + "/data-lake/kollect"
	p.srv.CreateBucket(t, "data-lake")
	creds := backend.MapCredentials{{Namespace: "team-a", Name: spec.SecretRef.Name}: {
		KeyAccessKeyID: []byte(p.srv.AccessKey), KeySecretAccessKey: []byte(p.srv.SecretKey)}}
	s, err := Backend{Egress: egress.Policy{AllowPrivate: true}}.New(context.Background(), sinkConfig(t, spec), creds)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	web := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
	batch := busv1.NamespacedName{Namespace: "team-a", Name: "batch"}
	for _, w := range []struct {
		inv  busv1.NamespacedName
		rev  uint64
		rows []busv1.Row
	}{
		{web, 1, []busv1.Row{lakeRow("api-1", "api:1.0", 3, 1), lakeRow("api-2", "api:1.0", 3, 2)}},
		{batch, 1, []busv1.Row{lakeRow("job-1", "batch:7", 1, 0.25)}},
		{web, 2, []busv1.Row{lakeRow("api-1", "api:1.1", 3, 0.5), lakeRow("api-3", "api:1.1", 3, 1.5)}},
		{batch, 2, nil},
	} {
		env, err := snapshot.Envelope(w.inv, w.rev, 1, w.rows)
		if err != nil {
			t.Fatal(err)
		}
		// the declared types of the example's Profile, as the aggregator
		// puts them on the snapshot event
		env.AttributeTypes = busv1.AttributeTypes{"image": "string", "replicas": "int", "cpu": "float"}
		objectstoretest.Write(t, s, sink.Snapshot{Envelope: env.Stamp(spec.Cluster, time.Now())})
	}
	local := t.TempDir()
	for _, key := range p.list(t, "data-lake", "") {
		body, _, err := p.getter("data-lake")(context.Background(), key)
		if err != nil {
			t.Fatal(err)
		}
		path := filepath.Join(local, "data-lake", filepath.FromSlash(key))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, body, 0o644); err != nil {
			t.Fatal(err)
		}
	}

	queries := docQueries(t, "docs/sinks/s3.md")
	want := []queryResult{
		{Columns: []string{"part_cluster", "part_namespace", "part_inventory", "namespace", "name", "attr_image", "attr_cpu"},
			Types: []string{"VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE"},
			Rows: [][]any{
				{"prod-eu-1", "team-a", "batch", "team-a", "job-1", "batch:7", 0.25},
				{"prod-eu-1", "team-a", "web", "team-a", "api-1", "api:1.0", 1.0},
				{"prod-eu-1", "team-a", "web", "team-a", "api-1", "api:1.1", 0.5},
				{"prod-eu-1", "team-a", "web", "team-a", "api-2", "api:1.0", 2.0},
				{"prod-eu-1", "team-a", "web", "team-a", "api-3", "api:1.1", 1.5},
			}},
		{Columns: []string{"cluster", "inventory_namespace", "inventory_name", "namespace", "name", "attr_cpu"},
			Types: []string{"VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "DOUBLE"},
			Rows: [][]any{
				{"prod-eu-1", "team-a", "web", "team-a", "api-1", 0.5},
				{"prod-eu-1", "team-a", "web", "team-a", "api-3", 1.5},
			}},
		// replicas is declared int: a BIGINT (getRowsJson gives BIGINT as strings)
		{Columns: []string{"cluster", "inventory_namespace", "inventory_name", "namespace", "name", "attr_replicas"},
			Types: []string{"VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "VARCHAR", "BIGINT"},
			Rows: [][]any{
				{"prod-eu-1", "team-a", "batch", "team-a", "job-1", "1"},
				{"prod-eu-1", "team-a", "web", "team-a", "api-1", "3"},
				{"prod-eu-1", "team-a", "web", "team-a", "api-1", "3"},
				{"prod-eu-1", "team-a", "web", "team-a", "api-2", "3"},
				{"prod-eu-1", "team-a", "web", "team-a", "api-3", "3"},
			}},
		{Columns: []string{"name", "type"}, Types: []string{"VARCHAR", "VARCHAR"},
			Rows: [][]any{{"attr_cpu", "DOUBLE"}, {"attr_image", "BYTE_ARRAY"}, {"attr_replicas", "INT64"}}},
		// Past revisions: web's revisions, then revision 1 read back.
		{Columns: []string{"revision", "item_count"}, Types: []string{"INTEGER", "INTEGER"},
			Rows: [][]any{{1.0, 2.0}, {2.0, 2.0}}},
		{Columns: []string{"namespace", "name", "attr_image"}, Types: []string{"VARCHAR", "VARCHAR", "VARCHAR"},
			Rows: [][]any{{"team-a", "api-1", "api:1.0"}, {"team-a", "api-2", "api:1.0"}}},
	}
	if len(queries) != len(want) {
		t.Fatalf("the page has %d sql blocks, the test knows %d", len(queries), len(want))
	}
	// Beyond the page: the whole schema as DuckDB reads it with Hive
	// partitioning forced on, each column once, of one type over all files.
	glob := "s3://data-lake/kollect/inventory/part_cluster=*/*/*/*.parquet"
	queries = append(queries, "DESCRIBE SELECT * FROM read_parquet('"+glob+"', hive_partitioning = true)")
	want = append(want, queryResult{Columns: []string{"column_name", "column_type"}, Rows: [][]any{
		{"attr_cpu", "DOUBLE"}, {"attr_image", "VARCHAR"}, {"attr_replicas", "BIGINT"}, {"attributes", "JSON"},
		{"cluster", "VARCHAR"}, {"exported_at", "TIMESTAMP WITH TIME ZONE"}, {"group", "VARCHAR"},
		{"inventory_name", "VARCHAR"}, {"inventory_namespace", "VARCHAR"}, {"kind", "VARCHAR"}, {"name", "VARCHAR"},
		{"namespace", "VARCHAR"}, {"target_name", "VARCHAR"}, {"target_namespace", "VARCHAR"}, {"uid", "VARCHAR"},
		{"version", "VARCHAR"}, {"part_cluster", "VARCHAR"}, {"part_inventory", "VARCHAR"}, {"part_namespace", "VARCHAR"},
	}})
	for i := range queries {
		queries[i] = strings.ReplaceAll(queries[i], "s3://", local+"/")
	}
	got := db.run(t, queries)
	for i := range want {
		g := got[i]
		if want[i].Types == nil { // DESCRIBE: names and types only
			g.Columns, g.Types = g.Columns[:2], nil
			for j := range g.Rows {
				g.Rows[j] = g.Rows[j][:2]
			}
		}
		if d := cmp.Diff(want[i], g); d != "" {
			t.Errorf("query %d differs (-want +got):\n%s\n%s", i+1, d, queries[i])
		}
	}
}
