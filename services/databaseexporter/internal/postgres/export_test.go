package postgres_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

func diff(want, got sinktest.Projection) string { return cmp.Diff(want, got, cmpopts.EquateEmpty()) }

func TestTwoClustersShareOneTableWithoutTouchingEachOther(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	r := newReader(t, dsn, k)
	other := busv1.NamespacedName{Namespace: "team-b", Name: "web"}

	a1 := snap(t, "cluster-a", web, 1, row("a1", 1), row("shared-uid", 1))
	b1 := snap(t, "cluster-b", web, 1, row("b1", 1), row("shared-uid", 2))
	o1 := snap(t, "cluster-a", other, 1, row("o1", 1))
	write(t, k, a1)
	write(t, k, b1)
	write(t, k, o1)
	a2 := snap(t, "cluster-a", web, 2)
	write(t, k, a2)

	for _, c := range []struct {
		name    string
		cluster string
		inv     busv1.NamespacedName
		want    sinktest.Projection
	}{
		{"cluster A's empty snapshot emptied its rows", "cluster-a", web, want(a2)},
		{"cluster B's rows of the same inventory are untouched", "cluster-b", web, want(b1)},
		{"cluster A's other inventory is untouched", "cluster-a", other, want(o1)},
	} {
		t.Run(c.name, func(t *testing.T) {
			if d := diff(c.want, r.read(t, c.cluster, c.inv)); d != "" {
				t.Fatalf("projection (-want +got):\n%s", d)
			}
		})
	}
}

func TestRevisionOrder(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	r := newReader(t, dsn, k)
	newer := snap(t, "c", web, 5, row("a", 5))
	older := snap(t, "c", web, 4, row("a", 4), row("b", 4))
	write(t, k, newer)

	t.Run("an older revision is ignored without error", func(t *testing.T) {
		write(t, k, older)
		if d := diff(want(newer), r.read(t, "c", web)); d != "" {
			t.Fatalf("projection (-want +got):\n%s", d)
		}
	})
	t.Run("a replayed older revision is written", func(t *testing.T) {
		replay := older
		replay.Replay = true
		write(t, k, replay)
		if d := diff(want(older), r.read(t, "c", web)); d != "" {
			t.Fatalf("projection (-want +got):\n%s", d)
		}
	})
	t.Run("the next regular revision rewrites the replayed one", func(t *testing.T) {
		next := snap(t, "c", web, 6, row("a", 6))
		write(t, k, next)
		if d := diff(want(next), r.read(t, "c", web)); d != "" {
			t.Fatalf("projection (-want +got):\n%s", d)
		}
	})
}

func TestAttributesRoundTripExactly(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	r := newReader(t, dsn, k)
	attrs := map[string]any{
		"quotes":                `say "hi" and 'bye'`,
		"backslash":             `C:\path\n\t\\`,
		"newlines":              "line one\nline two\r\n\ttabbed",
		"unicode":               "héllo wörld ✓ 日本語 🚀 \u2028\u2029",
		"html":                  "<script>&amp;</script>",
		"sql":                   "'); DROP TABLE inventory; --",
		"nested":                map[string]any{"a": map[string]any{"b": []any{1.0, "two", true, nil, map[string]any{"c": "d"}}}},
		"emptyMap":              map[string]any{},
		"emptyList":             []any{},
		"null":                  nil,
		"number":                12345.678,
		"bigNumber":             1e21,
		"negative":              -0.5,
		"bool":                  false,
		"key \"with\" quotes\n": "value",
		"":                      "empty key",
	}
	rows := []busv1.Row{
		{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: `pod "quoted"`, UID: "u1", Version: "v1", Kind: "Pod", Attributes: attrs},
		{TargetName: "cluster-nodes", Name: "node-1", UID: "u2", Version: "v1", Kind: "Node", Attributes: map[string]any{}},
		{TargetNamespace: "team-a", TargetName: "apps", Namespace: "team-a", Name: "web", UID: "u3", Group: "apps", Version: "v1", Kind: "Deployment"},
	}
	s := snap(t, "c", web, 1, rows...)
	write(t, k, s)
	got := r.read(t, "c", web)
	// A nil attribute map is stored as {}: an object, as the contract says.
	w := want(s)
	if d := diff(w, got); d != "" {
		t.Fatalf("projection (-want +got):\n%s", d)
	}
}

func TestReExportRewritesOnlyChangedRows(t *testing.T) {
	for _, c := range []struct {
		name  string
		merge bool
	}{{"merge", true}, {"update and insert", false}} {
		t.Run(c.name, func(t *testing.T) {
			dsn := newDatabase(t)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
			if !c.merge {
				postgres.WithoutMerge(k)
			}
			conn := connect(t, dsn)
			r := newReader(t, dsn, k)
			other := snap(t, "c", busv1.NamespacedName{Namespace: "team-b", Name: "web"}, 1, row("a", 1), row("z", 1))
			write(t, k, other)
			write(t, k, snap(t, "c", web, 1, row("a", 1), row("b", 1), row("c", 1)))
			before := rowVersions(t, conn)
			write(t, k, snap(t, "c", web, 2, row("a", 1), row("b", 2), row("c", 1)))
			after := rowVersions(t, conn)

			wantAfter := map[string]rowVersion{"a": before["a"], "c": before["c"], "other/a": before["other/a"], "other/z": before["other/z"]}
			b := after["b"]
			if b.xmin == before["b"].xmin || b.revision != 2 {
				t.Fatalf("the changed row b was not rewritten by revision 2: before %+v, after %+v", before["b"], b)
			}
			wantAfter["b"] = b
			if d := cmp.Diff(wantAfter, after, cmp.AllowUnexported(rowVersion{})); d != "" {
				t.Fatalf("unchanged rows were rewritten (-want +got):\n%s", d)
			}

			third := snap(t, "c", web, 3, row("b", 2), row("c", 3), row("d", 3))
			write(t, k, third)
			if d := diff(want(third), r.read(t, "c", web)); d != "" {
				t.Fatalf("a re-export deleting, changing and adding rows (-want +got):\n%s", d)
			}
			if d := diff(want(other), r.read(t, "c", other.Envelope.Inventory)); d != "" {
				t.Fatalf("another inventory's rows were touched (-want +got):\n%s", d)
			}
		})
	}
}

func TestASnapshotRepeatingARowKeyIsAPermanentErrorNamingItAndWritesNothing(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	r := newReader(t, dsn, k)
	twice := row("twice", 1)
	twice.Name = "pod-other-name"
	s := snap(t, "c", web, 1, row("a", 1), row("twice", 1))
	s.Envelope.Items = append(s.Envelope.Items, twice)
	err := k.Write(context.Background(), s)
	if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), "uid twice") {
		t.Fatalf("write returned %v, want a permanent error naming uid twice", err)
	}
	if got := r.read(t, "c", web); len(got.Rows) != 0 || got.Revision != 0 {
		t.Fatalf("the failed write left %d rows and revision %d", len(got.Rows), got.Revision)
	}
}

// rowVersion is what an export leaves on a row: the transaction that wrote
// it and the export columns.
type rowVersion struct {
	xmin     string
	revision int64
	checksum string
}

func rowVersions(t *testing.T, c *pgx.Conn) map[string]rowVersion {
	t.Helper()
	rows, err := c.Query(context.Background(), `SELECT CASE inventory_namespace WHEN 'team-a' THEN '' ELSE 'other/' END || source_uid,
  xmin::text, revision, checksum FROM inventory`)
	if err != nil {
		t.Fatalf("read row versions: %v", err)
	}
	out := map[string]rowVersion{}
	var uid string
	var v rowVersion
	if _, err := pgx.ForEachRow(rows, []any{&uid, &v.xmin, &v.revision, &v.checksum}, func() error {
		out[uid] = v
		return nil
	}); err != nil {
		t.Fatalf("read row versions: %v", err)
	}
	return out
}
