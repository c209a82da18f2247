package verify_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/internal/verify"
)

// docDDL returns the first ```sql block of docs/sinks/postgres.md after
// heading: the DDL of the tables the sink creates.
func docDDL(t *testing.T, heading string) string {
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
	i := strings.Index(doc, heading)
	if i < 0 {
		t.Fatalf("docs/sinks/postgres.md has no %q", heading)
	}
	m := regexp.MustCompile("(?s)```sql\n(.*?)```").FindStringSubmatch(doc[i:])
	if m == nil {
		t.Fatalf("no sql block after %q", heading)
	}
	return m[1]
}

// pgDatabase creates the documented tables (history mode) in a new
// database of the shared server and returns a connection.
func pgDatabase(t *testing.T) *pgx.Conn {
	t.Helper()
	if server == nil {
		pg, err := testenv.NewPostgres("")
		if err != nil {
			t.Fatalf("start PostgreSQL: %v", err)
		}
		server = pg
	}
	dsn := server.CreateDatabase(t, strings.ToLower(regexp.MustCompile(`[^A-Za-z0-9]+`).ReplaceAllString(t.Name(), "_")))
	c, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Close(context.Background()) })
	for _, ddl := range []string{docDDL(t, "## What lands in the table"), docDDL(t, "## History")} {
		if _, err := c.Exec(context.Background(), ddl); err != nil {
			t.Fatalf("%s: %v", ddl, err)
		}
	}
	return c
}

// pgExport writes env as the sink's history mode does (docs/sinks/postgres.md
// "History"): the rows, the state row, the history's closed and opened
// versions, the revision.
func pgExport(t *testing.T, c *pgx.Conn, env busv1.Envelope) {
	t.Helper()
	ctx := context.Background()
	scope := []any{env.Cluster, env.Inventory.Namespace, env.Inventory.Name}
	args := func(more ...any) []any { return append(append([]any{}, scope...), more...) }
	const where = `cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`
	err := pgx.BeginFunc(ctx, c, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM kollect_rows WHERE `+where, scope...); err != nil {
			return err
		}
		for _, r := range env.Items {
			attrs, _ := json.Marshal(r.Attributes)
			_, err := tx.Exec(ctx, `INSERT INTO kollect_rows VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15)`,
				args(r.TargetNamespace, r.TargetName, r.UID, r.Namespace, r.Name, r.Group, r.Version, r.Kind, string(attrs),
					env.Checksum, int64(env.Revision), env.ExportedAt)...)
			if err != nil {
				return err
			}
		}
		rev, at := int64(env.Revision), env.ExportedAt
		stmts := []struct {
			sql  string
			args []any
		}{
			{`INSERT INTO kollect_rows_state VALUES ($1, $2, $3, $4, $5, $6, $7, NULL)
ON CONFLICT (cluster, inventory_namespace, inventory_name) DO UPDATE SET revision = $4, checksum = $5`,
				args(rev, env.Checksum, env.ItemCount, at)},
			{`UPDATE kollect_rows_history h SET valid_to_revision = $4, valid_to = $5 WHERE h.` + where + ` AND valid_to_revision IS NULL
AND NOT EXISTS (SELECT 1 FROM kollect_rows t WHERE t.` + where + ` AND t.target_namespace = h.target_namespace
  AND t.target_name = h.target_name AND t.source_uid = h.source_uid AND t.attributes = h.attributes)`, args(rev, at)},
			{`INSERT INTO kollect_rows_history SELECT cluster, inventory_namespace, inventory_name, target_namespace, target_name,
  source_uid, resource_namespace, resource_name, "group", version, kind, attributes, $4, NULL, $5, NULL
FROM kollect_rows t WHERE t.` + where + ` AND NOT EXISTS (SELECT 1 FROM kollect_rows_history h WHERE h.` + where + `
  AND t.target_namespace = h.target_namespace AND t.target_name = h.target_name AND t.source_uid = h.source_uid AND h.valid_to_revision IS NULL)`,
				args(rev, at)},
			{`INSERT INTO kollect_rows_revisions VALUES ($1, $2, $3, $4, $5, $6, $7, $8)`,
				args(rev, env.Checksum, env.PreviousChecksum, env.ItemCount, at)},
		}
		for _, s := range stmts {
			if _, err := tx.Exec(ctx, s.sql, s.args...); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatalf("export revision %d: %v", env.Revision, err)
	}
}

func verifyPostgres(t *testing.T, c *pgx.Conn) verify.Result {
	t.Helper()
	revs, err := verify.Postgres{Conn: c, Schema: "public", Table: "kollect_rows", Cluster: "prod-eu-1", Inventory: web}.Revisions(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Check(revs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

func TestPostgresHistory(t *testing.T) {
	for _, c := range []struct {
		name    string
		tamper  string
		wantRev uint64
		where   string
	}{
		{"an untouched table and history verify", "", 0, ""},
		{"a row edited in the history is found at its revision",
			`UPDATE kollect_rows_history SET attributes = '{"v": 9, "image": "web:b"}' WHERE source_uid = 'b' AND valid_from_revision = 2`,
			2, "kollect_rows_history"},
		{"a row edited in the current table is found",
			`UPDATE kollect_rows SET attributes = '{"v": 1, "image": "evil:a"}' WHERE source_uid = 'a'`, 3, `table "public"."kollect_rows"`},
		{"a revision's recorded checksum changed by hand breaks the chain",
			`UPDATE kollect_rows_revisions SET previous_checksum = 'forged' WHERE revision = 3`, 3, "kollect_rows_history"},
	} {
		t.Run(c.name, func(t *testing.T) {
			conn := pgDatabase(t)
			for _, env := range chain(t) {
				pgExport(t, conn, env)
			}
			if c.tamper != "" {
				if _, err := conn.Exec(context.Background(), c.tamper); err != nil {
					t.Fatal(err)
				}
			}
			res := verifyPostgres(t, conn)
			if c.wantRev == 0 {
				if res.First != nil || res.Checked != 4 || res.Linked != 2 {
					t.Fatalf("result %+v, first %+v; want 3 revisions and the current rows verified, 2 links", res, res.First)
				}
				return
			}
			if res.First == nil || res.First.Revision != c.wantRev || !strings.Contains(res.First.Where, c.where) {
				t.Fatalf("mismatch %+v, want one at revision %d in %s", res.First, c.wantRev, c.where)
			}
		})
	}
}
