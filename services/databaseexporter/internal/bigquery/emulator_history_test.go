//go:build bigquery_emulator

package bigquery

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"cloud.google.com/go/bigquery"
	"github.com/google/go-cmp/cmp"
	"google.golang.org/api/iterator"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// docQueries returns the two ```sql blocks after "### As of" in
// docs/sinks/bigquery.md, their table pointed at dataset.
func docQueries(t *testing.T, dataset string) []string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "docs", "sinks", "bigquery.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(md)
	i := strings.Index(doc, "### As of")
	if i < 0 {
		t.Fatal(`docs/sinks/bigquery.md has no "### As of"`)
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(doc[i:], 2) {
		out = append(out, strings.ReplaceAll(m[1], "acme-analytics.kollect.", emulatorProject+"."+dataset+"."))
	}
	if len(out) != 2 {
		t.Fatalf("found %d sql blocks after the heading, want 2", len(out))
	}
	return out
}

// TestEmulatorHistoryAsOf writes three revisions (a change and an
// addition, then a removal) with history on, then runs the documented "as
// of" queries for each revision and each export time: each answers that
// revision's rows.
func TestEmulatorHistoryAsOf(t *testing.T) {
	endpoint := startEmulator(t)
	for name, b := range map[string]Backend{"in one transaction": {}, "statement by statement": {NoTransactions: true}} {
		t.Run(name, func(t *testing.T) {
			dataset := fmt.Sprintf("kollect_h%d", dsSeq.Add(1))
			s := newEmulatorSink(t, endpoint, b, v1alpha1.BigQuerySink{Dataset: dataset, Table: "inventory_rows", // the docs queries name it
				History: &v1alpha1.TableHistory{Enabled: true}})
			inv := busv1.NamespacedName{Namespace: "team-a", Name: "web"}
			row := func(uid, image string) busv1.Row {
				return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "pod-" + uid, UID: uid,
					Version: "v1", Kind: "Pod", Attributes: map[string]any{"image": image}}
			}
			sets := [][]busv1.Row{
				{row("a", "web:1"), row("b", "web:1")},
				{row("a", "web:1"), row("b", "web:2"), row("c", "web:1")},
				{row("a", "web:1"), row("c", "web:1")},
			}
			start := time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC)
			prev := ""
			for i, rows := range sets {
				env, err := snapshot.Envelope(inv, uint64(i+1), 1, rows)
				if err != nil {
					t.Fatal(err)
				}
				env.PreviousChecksum, prev = prev, env.Checksum
				if err := s.Write(t.Context(), sink.Snapshot{Envelope: env.Stamp(sinktest.Cluster, start.Add(time.Duration(i)*time.Hour))}); err != nil {
					t.Fatalf("write revision %d: %v", i+1, err)
				}
			}
			r := newReader(t, endpoint, dataset)
			queries := docQueries(t, dataset)
			for i, rows := range sets {
				var want []string
				for _, rw := range rows {
					want = append(want, rw.Name+" "+rw.Attributes["image"].(string))
				}
				params := []bigquery.QueryParameter{{Name: "cluster", Value: sinktest.Cluster},
					{Name: "inventory_namespace", Value: "team-a"}, {Name: "inventory_name", Value: "web"}}
				byRev := append(slices.Clone(params), bigquery.QueryParameter{Name: "revision", Value: int64(i + 1)})
				byTime := append(slices.Clone(params), bigquery.QueryParameter{Name: "at", Value: start.Add(time.Duration(i)*time.Hour + time.Minute)})
				for qi, p := range [][]bigquery.QueryParameter{byRev, byTime} {
					got := asOf(t, r, queries[qi], p)
					if d := cmp.Diff(want, got); d != "" {
						t.Errorf("query %d as of revision %d (-want +got):\n%s", qi+1, i+1, d)
					}
				}
			}
		})
	}
}

func asOf(t *testing.T, r reader, sql string, params []bigquery.QueryParameter) []string {
	t.Helper()
	var got []string
	err := r.query(t.Context(), statement{SQL: sql, Params: params}, func(it *bigquery.RowIterator) error {
		for {
			var v struct {
				Name       string `bigquery:"resource_name"`
				Attributes string `bigquery:"attributes"`
			}
			if err := it.Next(&v); err != nil {
				return err
			}
			var a map[string]any
			if err := json.Unmarshal([]byte(v.Attributes), &a); err != nil {
				return err
			}
			got = append(got, fmt.Sprintf("%s %v", v.Name, a["image"]))
		}
	})
	if err != nil && err != iterator.Done {
		t.Fatal(err)
	}
	return got
}
