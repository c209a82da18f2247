package postgres_test

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// TestACrashBetweenDataAndRevisionNeitherDuplicatesNorLosesRows kills the
// export's backend after it has updated the changed row and inserted the
// new one, but before it has deleted the absent row and recorded the
// revision: the test's own transaction locks the absent row, so the
// export's delete waits on it; the test then terminates the export's
// backend. Nothing of the export may remain; the re-run export then applies
// it exactly. Both merges run it: MERGE, and UPDATE and INSERT (servers
// before PostgreSQL 15).
func TestACrashBetweenDataAndRevisionNeitherDuplicatesNorLosesRows(t *testing.T) {
	for _, c := range []struct {
		name  string
		merge bool
	}{{"merge", true}, {"update and insert", false}} {
		t.Run(c.name, func(t *testing.T) {
			ctx := context.Background()
			dsn := newDatabase(t)
			k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
			if !c.merge {
				postgres.WithoutMerge(k)
			}
			r := newReader(t, dsn, k)
			first := snap(t, "c", web, 1, row("a", 1), row("b", 1), row("gone", 1))
			write(t, k, first)
			second := snap(t, "c", web, 2, row("a", 2), row("b", 1), row("new", 2))

			locker := connect(t, dsn)
			tx, err := locker.Begin(ctx)
			if err != nil {
				t.Fatalf("begin: %v", err)
			}
			defer func() { _ = tx.Rollback(ctx) }()
			if _, err := tx.Exec(ctx, `SELECT 1 FROM inventory WHERE source_uid = 'gone' FOR UPDATE`); err != nil {
				t.Fatalf("lock the row the export deletes: %v", err)
			}
			done := make(chan error, 1)
			go func() { done <- k.Write(ctx, second) }()

			pid, query := waitForLockWait(t, connect(t, dsn))
			if !strings.HasPrefix(query, `DELETE FROM "public"."inventory"`) {
				t.Fatalf("the export waits in %q, want the delete of the absent rows (after the update and the insert)", query)
			}
			killer := connect(t, dsn)
			var killed bool
			if err := killer.QueryRow(ctx, `SELECT pg_terminate_backend($1)`, pid).Scan(&killed); err != nil || !killed {
				t.Fatalf("terminate the export's backend %d: %v (terminated %v)", pid, err, killed)
			}
			werr := <-done
			if werr == nil || sink.IsPermanent(werr) {
				t.Fatalf("the killed export returned %v, want a transient error", werr)
			}
			if err := tx.Rollback(ctx); err != nil {
				t.Fatalf("release the lock: %v", err)
			}
			if d := diff(want(first), r.read(t, "c", web)); d != "" {
				t.Fatalf("after the crash the table holds part of revision 2 (-want +got):\n%s", d)
			}
			write(t, k, second)
			if d := diff(want(second), r.read(t, "c", web)); d != "" {
				t.Fatalf("after the re-run (-want +got):\n%s", d)
			}
			var n int
			if err := killer.QueryRow(ctx, `SELECT count(*) FROM inventory`).Scan(&n); err != nil || n != 3 {
				t.Fatalf("the table holds %d rows (err %v), want exactly 3", n, err)
			}
		})
	}
}

// waitForLockWait returns the pid and statement of the exporter's backend
// once it waits on a lock.
func waitForLockWait(t *testing.T, c *pgx.Conn) (int, string) {
	t.Helper()
	var pid int
	var query string
	testenv.Eventually(t, 20*time.Second, "the export waiting on the held key", func() error {
		err := c.QueryRow(context.Background(), `SELECT pid, query FROM pg_stat_activity
WHERE application_name = 'kollect-database-exporter' AND datname = current_database() AND wait_event_type = 'Lock'`).Scan(&pid, &query)
		if err != nil && !errors.Is(err, pgx.ErrNoRows) {
			t.Fatalf("look for the blocked export: %v", err)
		}
		return err
	})
	return pid, query
}

// TestAnOutageDuringAnExportIsRetriedAndConverges stops the server: the
// write fails with a transient error; once the server is back, retries
// (as the exporter runtime makes them) converge to exactly the snapshot.
func TestAnOutageDuringAnExportIsRetriedAndConverges(t *testing.T) {
	dsn := newDatabase(t)
	k := open(t, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	write(t, k, snap(t, "c", web, 1, row("a", 1), row("b", 1)))
	second := snap(t, "c", web, 2, row("a", 2), row("c", 2))

	if err := server.StopServer(); err != nil {
		t.Fatalf("stop PostgreSQL: %v", err)
	}
	restarted := false
	t.Cleanup(func() {
		if !restarted {
			_ = server.StartServer()
		}
	})
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	err := k.Write(ctx, second)
	if err == nil || sink.IsPermanent(err) {
		t.Fatalf("a write during the outage returned %v, want a transient error", err)
	}
	if err := server.StartServer(); err != nil {
		t.Fatalf("start PostgreSQL: %v", err)
	}
	restarted = true

	// The pool may hold connections the outage broke: each failed attempt
	// discards one, as retries with backoff would.
	var attempts int
	for err = errors.New("not tried"); err != nil; attempts++ {
		if attempts == 10 {
			t.Fatalf("the write did not converge after %d attempts: %v", attempts, err)
		}
		if err = k.Write(ctx, second); sink.IsPermanent(err) {
			t.Fatalf("a write after the outage returned a permanent error: %v", err)
		}
	}
	r := newReader(t, dsn, k)
	if d := diff(want(second), r.read(t, "c", web)); d != "" {
		t.Fatalf("after the outage (-want +got):\n%s", d)
	}
}
