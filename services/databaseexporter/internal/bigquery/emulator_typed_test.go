//go:build bigquery_emulator

package bigquery

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/iterator"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
)

// typedRow is what the typed columns of one row hold.
type typedRow struct {
	Name     string               `bigquery:"resource_name"`
	Replicas bigquery.NullInt64   `bigquery:"attr_replicas"`
	Ratio    bigquery.NullFloat64 `bigquery:"attr_ratio"`
	Ready    bigquery.NullBool    `bigquery:"attr_ready"`
	Image    bigquery.NullString  `bigquery:"attr_image"`
}

// TestEmulatorTypedColumns writes a snapshot whose Profile declares an
// int, a float, a bool, a string and a list, with history on: the data and
// history tables get INT64, FLOAT64, BOOL and STRING columns (none for the
// list), holding the values exactly, an int beyond 2^53 included, beside
// the attributes JSON.
func TestEmulatorTypedColumns(t *testing.T) {
	endpoint := startEmulator(t)
	for name, b := range map[string]Backend{"in one transaction": {}, "statement by statement": {NoTransactions: true}} {
		t.Run(name, func(t *testing.T) {
			dataset := fmt.Sprintf("kollect_t%d", dsSeq.Add(1))
			s := newEmulatorSink(t, endpoint, b, v1alpha1.BigQuerySink{Dataset: dataset, Table: "rows",
				History: &v1alpha1.TableHistory{Enabled: true}})
			// Decoded from the bus as the exporter decodes it: the big int is
			// an int64, the others float64.
			var rows []busv1.Row
			in := `[{"targetNamespace":"team-a","targetName":"deploys","namespace":"team-a","name":"a","uid":"a","version":"v1","kind":"Deployment",` +
				`"attributes":{"replicas":9007199254740993,"ratio":0.25,"ready":true,"image":"web:1","ports":[80]}},` +
				`{"targetNamespace":"team-a","targetName":"deploys","namespace":"team-a","name":"b","uid":"b","version":"v1","kind":"Deployment",` +
				`"attributes":{"replicas":2,"ratio":1,"ready":false,"image":"web:2","ports":[]}}]`
			if err := busv1.Unmarshal([]byte(in), &rows); err != nil {
				t.Fatal(err)
			}
			inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
			env, err := snapshot.Envelope(inv, 1, 1, rows)
			if err != nil {
				t.Fatal(err)
			}
			env.AttributeTypes = busv1.AttributeTypes{"replicas": "int", "ratio": "float", "ready": "bool", "image": "string", "ports": "list"}
			if err := s.Write(t.Context(), sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, time.Now())}); err != nil {
				t.Fatalf("write: %v", err)
			}
			r := newReader(t, endpoint, dataset)
			wantTypes := map[string]bigquery.FieldType{"attr_replicas": bigquery.IntegerFieldType, "attr_ratio": bigquery.FloatFieldType,
				"attr_ready": bigquery.BooleanFieldType, "attr_image": bigquery.StringFieldType}
			for _, table := range []string{"rows", "rows" + HistorySuffix} {
				md, err := r.client.Dataset(dataset).Table(table).Metadata(t.Context())
				if err != nil {
					t.Fatal(err)
				}
				got := map[string]bigquery.FieldType{}
				for _, f := range md.Schema {
					if strings.HasPrefix(f.Name, AttributeColumnPrefix) {
						got[f.Name] = f.Type
					}
				}
				if d := cmp.Diff(wantTypes, got); d != "" {
					t.Errorf("typed columns of %s (-want +got):\n%s", table, d)
				}
			}
			want := []typedRow{
				{Name: "a", Replicas: bigquery.NullInt64{Int64: 9007199254740993, Valid: true}, Ratio: bigquery.NullFloat64{Float64: 0.25, Valid: true},
					Ready: bigquery.NullBool{Bool: true, Valid: true}, Image: bigquery.NullString{StringVal: "web:1", Valid: true}},
				{Name: "b", Replicas: bigquery.NullInt64{Int64: 2, Valid: true}, Ratio: bigquery.NullFloat64{Float64: 1, Valid: true},
					Ready: bigquery.NullBool{Bool: false, Valid: true}, Image: bigquery.NullString{StringVal: "web:2", Valid: true}},
			}
			for _, table := range []string{"rows", "rows" + HistorySuffix} {
				if d := cmp.Diff(want, typedRows(t, r, table)); d != "" {
					t.Errorf("typed values in %s (-want +got):\n%s", table, d)
				}
			}
			// The JSON column still holds every attribute, the list included.
			got, _, err := r.Read(t.Context(), sinktest.Cluster, inv)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != 2 || got.Rows[0].Attributes["ports"] == nil || got.Rows[0].Attributes["replicas"] == nil {
				t.Errorf("attributes JSON: %+v, want every attribute", got.Rows)
			}

			// A Profile edit declares one more attribute. The next write asks for
			// its column with ALTER TABLE, which the emulator refuses: the write
			// still succeeds, the value is in the JSON, the refusal is logged.
			for i := range rows {
				rows[i].Attributes["zone"] = "eu-" + rows[i].Name
			}
			env, err = snapshot.Envelope(inv, 2, 1, rows)
			if err != nil {
				t.Fatal(err)
			}
			env.AttributeTypes = busv1.AttributeTypes{"replicas": "int", "ratio": "float", "ready": "bool", "image": "string", "ports": "list", "zone": "string"}
			var logged []string
			ctx := logr.NewContext(t.Context(), funcr.New(func(prefix, args string) { logged = append(logged, args) }, funcr.Options{}))
			if err := s.Write(ctx, sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, time.Now())}); err != nil {
				t.Fatalf("write with a new typed attribute: %v", err)
			}
			if len(logged) != 1 || !strings.Contains(logged[0], "attr_zone") || !strings.Contains(logged[0], "AlterTable") {
				t.Errorf("logged %q, want one line naming attr_zone and the refused ALTER TABLE", logged)
			}
			got, _, err = r.Read(t.Context(), sinktest.Cluster, inv)
			if err != nil {
				t.Fatal(err)
			}
			if len(got.Rows) != 2 || got.Rows[0].Attributes["zone"] != "eu-a" {
				t.Errorf("attributes JSON after the refusal: %+v, want zone in it", got.Rows)
			}
			if d := cmp.Diff(want, typedRows(t, r, "rows")); d != "" {
				t.Errorf("typed values after the refusal (-want +got):\n%s", d)
			}
			// Asked again only after alterRetry: the next write logs nothing.
			logged = nil
			env, _ = snapshot.Envelope(inv, 3, 1, rows)
			env.AttributeTypes = busv1.AttributeTypes{"zone": "string"}
			if err := s.Write(ctx, sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, time.Now())}); err != nil || len(logged) != 0 {
				t.Errorf("the next write: %v, logged %q; want no error and no new request", err, logged)
			}
		})
	}
}

// typedRows reads the typed columns of table, ordered by resource name.
func typedRows(t *testing.T, r reader, table string) []typedRow {
	t.Helper()
	var out []typedRow
	st := statement{SQL: "SELECT resource_name, attr_replicas, attr_ratio, attr_ready, attr_image FROM " + r.data.with(table).sql() +
		" ORDER BY resource_name"}
	err := r.query(t.Context(), st, func(it *bigquery.RowIterator) error {
		for {
			var v typedRow
			if err := it.Next(&v); err != nil {
				return err
			}
			out = append(out, v)
		}
	})
	if err != nil && err != iterator.Done {
		t.Fatalf("read %s: %v", table, err)
	}
	return out
}
