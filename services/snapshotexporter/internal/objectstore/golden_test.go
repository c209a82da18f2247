package objectstore_test

import (
	"fmt"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv/golden"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// fixture is a small fixed envelope whose hot attributes cover every
// inferred type, a missing value and a mixed one.
func fixture(t *testing.T) busv1.Envelope {
	t.Helper()
	rows := []busv1.Row{
		{TargetNamespace: "team-a", TargetName: "deploys", Namespace: "team-a", Name: "api", UID: "u-1",
			Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{
				"image": "api:1.2", "replicas": float64(3), "cpu": 0.5, "ready": true,
				"ports": []any{float64(80), float64(443)}, "labels": map[string]any{"app": "api"}, "owner": "alice",
				"mixed": "x"}},
		{TargetNamespace: "team-a", TargetName: "deploys", Namespace: "team-a", Name: "web", UID: "u-2",
			Group: "apps", Version: "v1", Kind: "Deployment", Attributes: map[string]any{
				"image": "web:2.0", "replicas": float64(1), "cpu": float64(2), "ready": false,
				"ports": []any{}, "labels": map[string]any{}, "mixed": float64(7)}},
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "apps"}, 7, 3, rows)
	if err != nil {
		t.Fatal(err)
	}
	return env.Stamp("prod-eu", time.Date(2026, 11, 29, 12, 0, 0, 0, time.UTC))
}

var hot = []string{"image", "replicas", "cpu", "ready", "ports", "labels", "owner", "mixed", "absent"}

func TestGoldenDocuments(t *testing.T) {
	for _, format := range []string{"json", "ndjson"} {
		t.Run("the "+format+" object of a fixed envelope is stable", func(t *testing.T) {
			env := fixture(t)
			l := objectstore.Layout{Format: format, Compression: "none", PathTemplate: objectstore.DefaultPathTemplate}
			obj, err := l.Encode(&env, nil)
			if err != nil {
				t.Fatal(err)
			}
			golden.Check(t, filepath.Join("testdata", format+".golden"), obj.Body)
			back, err := objectstoretest.DecodeDocument(format, obj.Body)
			if err != nil {
				t.Fatal(err)
			}
			if d := cmp.Diff(env, back); d != "" {
				t.Errorf("decoded object differs from the envelope (-want +got):\n%s", d)
			}
		})
	}
}

func TestGoldenParquet(t *testing.T) {
	t.Run("the parquet schema and columns of a fixed envelope are stable", func(t *testing.T) {
		env := fixture(t)
		l := objectstore.Layout{Format: "parquet", Compression: "none", HotAttributes: hot}
		obj, err := l.Encode(&env, nil)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := objectstoretest.ReadParquet(obj.Body)
		if err != nil {
			t.Fatal(err)
		}
		golden.Check(t, filepath.Join("testdata", "parquet"+".golden"), []byte(dump(pf)))
		if d := cmp.Diff(env.Items, pf.Rows); d != "" {
			t.Errorf("rows rebuilt from the columns differ (-want +got):\n%s", d)
		}
	})
}

// dump prints the schema, the metadata and every row's columns.
func dump(pf *objectstoretest.ParquetFile) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s\n\nmetadata:\n", pf.Schema)
	keys := make([]string, 0, len(pf.Metadata))
	for k := range pf.Metadata {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		fmt.Fprintf(&b, "  %s = %s\n", k, pf.Metadata[k])
	}
	for i, row := range pf.Values {
		fmt.Fprintf(&b, "\nrow %d:\n", i)
		for _, c := range pf.Columns {
			fmt.Fprintf(&b, "  %s = %#v\n", c, row[c])
		}
	}
	return b.String()
}
