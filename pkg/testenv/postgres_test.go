package testenv_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/jackc/pgx/v5"

	"kollect.dev/kollect/pkg/testenv"
)

func TestPostgresRoundTripSurvivesRestart(t *testing.T) {
	pg := timed(t, "PostgreSQL", func() *testenv.Postgres { return testenv.StartPostgres(t) })
	ctx := t.Context()
	dsn := pg.CreateDatabase(t, "roundtrip")

	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	for _, sql := range []string{
		`CREATE TABLE items (id int PRIMARY KEY, name text NOT NULL)`,
		`INSERT INTO items VALUES (1, 'first'), (2, 'second')`,
	} {
		if _, err := conn.Exec(ctx, sql); err != nil {
			t.Fatalf("%s: %v", sql, err)
		}
	}
	if got := itemNames(t, conn); got != "first,second" {
		t.Fatalf("items = %q, want first,second", got)
	}

	pg.Restart(t)
	if _, err := conn.Exec(ctx, `SELECT 1`); err == nil {
		t.Fatal("a connection opened before the restart still works; the server did not restart")
	}
	conn2, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatalf("reconnect after restart: %v", err)
	}
	defer conn2.Close(ctx)
	if got := itemNames(t, conn2); got != "first,second" {
		t.Fatalf("items after restart = %q, want first,second", got)
	}

	other, err := pgx.Connect(ctx, pg.CreateDatabase(t, "other"))
	if err != nil {
		t.Fatalf("connect to the second database: %v", err)
	}
	defer other.Close(ctx)
	if _, err := other.Exec(ctx, `SELECT * FROM items`); err == nil || !strings.Contains(err.Error(), "does not exist") {
		t.Fatalf("table items seen from another database: err = %v", err)
	}

	if err := pg.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	requireClosed(t, fmt.Sprintf("127.0.0.1:%d", pg.Port))
	if _, err := os.Stat(pg.Dir); !os.IsNotExist(err) {
		t.Fatalf("cluster folder %s left behind: %v", pg.Dir, err)
	}
}

func TestPostgresRefusesAFolderPostgresCannotEnter(t *testing.T) {
	if os.Geteuid() != 0 {
		return // only root hands the cluster to another user
	}
	// t.TempDir of a root process is mode 0700: user postgres cannot enter it.
	_, err := testenv.NewPostgres(filepath.Join(t.TempDir(), "pg"))
	if err == nil || !strings.Contains(err.Error(), "cannot enter") {
		t.Fatalf("NewPostgres in a closed folder: err = %v, want one saying postgres cannot enter it", err)
	}
}

func itemNames(t *testing.T, conn *pgx.Conn) string {
	t.Helper()
	rows, err := conn.Query(t.Context(), `SELECT name FROM items ORDER BY id`)
	if err != nil {
		t.Fatalf("select: %v", err)
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		t.Fatalf("read rows: %v", err)
	}
	return strings.Join(names, ",")
}
