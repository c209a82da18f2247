package postgres_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

// historySpec is spec with history mode on.
func historySpec(schema, table string, mode v1alpha1.ProvisioningMode) v1alpha1.KollectDatabaseSinkSpec {
	s := spec(schema, table, mode)
	s.Postgres.History = &v1alpha1.TableHistory{Enabled: true}
	return s
}

func TestConformanceWithHistory(t *testing.T) {
	sinktest.Run(t, sinktest.Factory{
		New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
			dsn := newDatabase(t)
			k := open(t, dsn, historySpec("kollect", "rows", v1alpha1.ProvisionEnsure))
			return k, newReader(t, dsn, k)
		},
	})
}

// historySQL returns the ```sql blocks of the "## History" section of
// docs/sinks/postgres.md, in order.
func historySQL(t *testing.T) []string {
	t.Helper()
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	md, err := os.ReadFile(filepath.Join(root, "docs", "sinks", "postgres.md"))
	if err != nil {
		t.Fatal(err)
	}
	doc := string(md)
	start := strings.Index(doc, "\n## History\n")
	if start < 0 {
		t.Fatal(`docs/sinks/postgres.md has no "## History" section`)
	}
	doc = doc[start+1:]
	if end := strings.Index(doc, "\n## "); end >= 0 {
		doc = doc[:end]
	}
	var out []string
	for _, m := range regexp.MustCompile("(?s)```sql\n(.*?)```").FindAllStringSubmatch(doc, -1) {
		out = append(out, m[1])
	}
	return out
}

// query runs sql on c and returns each row's values as text.
func query(t *testing.T, c *pgx.Conn, sql string) [][]string {
	t.Helper()
	rows, err := c.Query(context.Background(), sql)
	if err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	defer rows.Close()
	var out [][]string
	for rows.Next() {
		vals, err := rows.Values()
		if err != nil {
			t.Fatal(err)
		}
		line := make([]string, len(vals))
		for i, v := range vals {
			switch v := v.(type) {
			case nil:
				line[i] = "NULL"
			case time.Time:
				line[i] = v.UTC().Format(time.RFC3339)
			case map[string]any:
				b, _ := json.Marshal(v)
				line[i] = string(b)
			default:
				b, _ := json.Marshal(v)
				line[i] = strings.Trim(string(b), `"`)
			}
		}
		out = append(out, line)
	}
	if err := rows.Err(); err != nil {
		t.Fatalf("%s: %v", sql, err)
	}
	return out
}

// TestHistoryKeepsEveryRevision writes three revisions (a change and an
// addition, then a removal as a delta), a replay of an older revision and
// the inventory's deletion, and runs the "as of" queries of
// docs/sinks/postgres.md, exactly as written, against the history.
func TestHistoryKeepsEveryRevision(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, historySpec("public", "kollect_rows", v1alpha1.ProvisionEnsure))
	const cluster = "prod-eu-1"
	s1 := snap(t, cluster, web, 1, row("a", 1), row("b", 2))
	s2 := snap(t, cluster, web, 2, row("a", 1), row("b", 3), row("c", 1))
	s2.Envelope.PreviousChecksum = s1.Envelope.Checksum
	s3 := snap(t, cluster, web, 3, row("a", 1), row("c", 1))
	s3.Envelope.PreviousChecksum = s2.Envelope.Checksum
	s3.Delta = &busv1.Delta{BaseRevision: 2, BaseChecksum: s2.Envelope.Checksum, Upserts: []busv1.Row{},
		Deletes: []busv1.RowKey{row("b", 0).Key()}}
	write(t, k, s1)
	write(t, k, s2)
	if err := k.WriteDelta(context.Background(), s3); err != nil {
		t.Fatalf("write the delta of revision 3: %v", err)
	}
	replayed := s1
	replayed.Replay = true
	write(t, k, replayed)

	c := connect(t, dsn)
	blocks := historySQL(t)
	if len(blocks) != 5 {
		t.Fatalf("the History section has %d sql blocks, want 5 (DDL, as of a revision, as of a time, revisions, timeline)", len(blocks))
	}
	blocks = blocks[1:]
	uids := func(rows [][]string) []string {
		var out []string
		for _, r := range rows {
			out = append(out, r[2]+"="+r[5])
		}
		return out
	}
	t.Run("as of revision 2 the history holds revision 2", func(t *testing.T) {
		want := []string{`a={"v":1}`, `b={"v":3}`, `c={"v":1}`}
		if d := cmp.Diff(want, uids(query(t, c, blocks[0]))); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("as of revision 2's export time the history holds revision 2", func(t *testing.T) {
		if !strings.Contains(blocks[1], s2.Envelope.ExportedAt.Format("2006-01-02 15:04:05")) {
			t.Fatalf("the documented time is not revision 2's export time %s:\n%s", s2.Envelope.ExportedAt, blocks[1])
		}
		want := []string{`a={"v":1}`, `b={"v":3}`, `c={"v":1}`}
		if d := cmp.Diff(want, uids(query(t, c, blocks[1]))); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("the revisions are listed with their checksums, the replay not among them", func(t *testing.T) {
		want := [][]string{
			{"1", s1.Envelope.Checksum, "", "2", "2026-11-29T12:00:01Z"},
			{"2", s2.Envelope.Checksum, s1.Envelope.Checksum, "3", "2026-11-29T12:00:02Z"},
			{"3", s3.Envelope.Checksum, s2.Envelope.Checksum, "2", "2026-11-29T12:00:03Z"},
		}
		if d := cmp.Diff(want, query(t, c, blocks[2])); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})
	t.Run("one object's timeline has a version per change and ends at its removal", func(t *testing.T) {
		want := [][]string{
			{"1", "2", "2026-11-29T12:00:01Z", "2026-11-29T12:00:02Z", `{"v":2}`},
			{"2", "3", "2026-11-29T12:00:02Z", "2026-11-29T12:00:03Z", `{"v":3}`},
		}
		if d := cmp.Diff(want, query(t, c, blocks[3])); d != "" {
			t.Errorf("(-want +got):\n%s", d)
		}
	})

	t.Run("the inventory's deletion closes every open version", func(t *testing.T) {
		del := snap(t, cluster, web, 4)
		del.Deleted, del.Envelope.PreviousChecksum = true, s3.Envelope.Checksum
		write(t, k, del)
		var open, revs int
		err := c.QueryRow(context.Background(), `SELECT
  (SELECT count(*) FROM public.kollect_rows_history WHERE valid_to_revision IS NULL),
  (SELECT count(*) FROM public.kollect_rows_revisions WHERE revision = 4 AND item_count = 0)`).Scan(&open, &revs)
		if err != nil {
			t.Fatal(err)
		}
		if open != 0 || revs != 1 {
			t.Errorf("after the deletion: %d open versions, %d revision rows for revision 4; want 0 and 1", open, revs)
		}
	})
}

func TestHistoryEnabledOnAFilledTableStartsFromItsRows(t *testing.T) {
	dsn := newDatabase(t)
	plain := open(t, dsn, spec("public", "rows", v1alpha1.ProvisionEnsure))
	write(t, plain, snap(t, "c", web, 1, row("a", 1), row("b", 1)))
	k := open(t, dsn, historySpec("public", "rows", v1alpha1.ProvisionEnsure))
	write(t, k, snap(t, "c", web, 2, row("a", 2), row("b", 1)))
	got := query(t, connect(t, dsn), `SELECT source_uid, valid_from_revision, valid_to_revision FROM public.rows_history
ORDER BY source_uid, valid_from_revision`)
	want := [][]string{{"a", "2", "NULL"}, {"b", "2", "NULL"}}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("history (-want +got):\n%s", d)
	}
}

func TestHistoryModeExistingNamesTheMissingTables(t *testing.T) {
	dsn := newDatabase(t)
	write(t, open(t, dsn, spec("public", "rows", v1alpha1.ProvisionEnsure)), snap(t, "c", web, 1, row("a", 1)))
	k := open(t, dsn, historySpec("public", "rows", v1alpha1.ProvisionExisting))
	err := k.Check(context.Background())
	if !sink.IsPermanent(err) {
		t.Fatalf("check returned %v, want a permanent error", err)
	}
	for _, name := range []string{`"public"."rows_history" does not exist`, `"public"."rows_revisions" does not exist`} {
		if !strings.Contains(err.Error(), name) {
			t.Errorf("the error %q does not say %s", err, name)
		}
	}
	// The documented DDL, for the table "rows", is all mode existing needs.
	ddl := strings.ReplaceAll(historySQL(t)[0], "kollect_rows", "rows")
	exec(t, connect(t, dsn), ddl)
	k = open(t, dsn, historySpec("public", "rows", v1alpha1.ProvisionExisting))
	write(t, k, snap(t, "c", web, 2, row("a", 2)))
	var versions int
	if err := connect(t, dsn).QueryRow(context.Background(), `SELECT count(*) FROM public.rows_history`).Scan(&versions); err != nil || versions != 1 {
		t.Fatalf("after a write into the documented tables: %d versions (%v), want 1", versions, err)
	}
}

// TestABackfillRewindsTheHistoryAndRebuildsItForward writes revisions 1 to
// 4 live to one table, and to another only revision 4 (as a newly bound
// sink gets it) then a backfill of 1 to 4 (the first BackfillStart, all
// replays), then revision 5 to both: the two histories are equal.
func TestABackfillRewindsTheHistoryAndRebuildsItForward(t *testing.T) {
	dsn := newDatabase(t)
	live := open(t, dsn, historySpec("public", "live", v1alpha1.ProvisionEnsure))
	fill := open(t, dsn, historySpec("public", "fill", v1alpha1.ProvisionEnsure))
	const cluster = "prod-eu-1"
	revs := [][]busv1.Row{
		{row("a", 1), row("b", 2)},
		{row("a", 1), row("b", 3), row("c", 1)},
		{row("a", 1), row("c", 1)},
		{row("a", 2), row("c", 1), row("d", 1)},
		{row("c", 1), row("d", 2)},
	}
	var snaps []sink.Snapshot
	for i, rows := range revs {
		s := snap(t, cluster, web, uint64(i+1), rows...)
		if i > 0 {
			s.Envelope.PreviousChecksum = snaps[i-1].Envelope.Checksum
		}
		snaps = append(snaps, s)
	}
	for _, s := range snaps[:4] {
		write(t, live, s)
	}
	write(t, fill, snaps[3])
	for i, s := range snaps[:4] {
		s.Replay, s.BackfillStart = true, i == 0
		write(t, fill, s)
	}
	write(t, live, snaps[4])
	write(t, fill, snaps[4])

	c := connect(t, dsn)
	for _, q := range []string{
		`SELECT source_uid, attributes, valid_from_revision, valid_to_revision, valid_from, valid_to FROM public.%s_history
ORDER BY source_uid, valid_from_revision`,
		`SELECT revision, checksum, previous_checksum, item_count, exported_at FROM public.%s_revisions ORDER BY revision`,
		`SELECT source_uid, attributes FROM public.%s ORDER BY source_uid`,
	} {
		want := query(t, c, strings.ReplaceAll(q, "%s", "live"))
		if len(want) < 2 {
			t.Fatalf("the live table holds %d rows for %s", len(want), q)
		}
		if d := cmp.Diff(want, query(t, c, strings.ReplaceAll(q, "%s", "fill"))); d != "" {
			t.Errorf("%s\nlive (-) and backfilled (+) differ:\n%s", q, d)
		}
	}
}
