package itest

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// pgDatabase is one database on the shared PostgreSQL server.
type pgDatabase struct {
	DSN string
}

var pgMu sync.Mutex

// newDatabase creates a database named name.
func newDatabase(t *testing.T, name string) pgDatabase {
	t.Helper()
	pg := postgresServer(t)
	pgMu.Lock() // createdb from the template database is not concurrent-safe
	defer pgMu.Unlock()
	return pgDatabase{DSN: pg.CreateDatabase(t, name)}
}

// exec runs a statement.
func (d pgDatabase) exec(ctx context.Context, sql string, args ...any) error {
	conn, err := pgx.Connect(ctx, d.DSN)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }()
	_, err = conn.Exec(ctx, sql, args...)
	return err
}

// pgExport is what a table holds for one (cluster, inventory).
type pgExport struct {
	Rows      []busv1.Row
	Checksums map[string]bool
	Revisions map[int64]bool
}

// rows reads the rows of (cluster, inventory) from table public.<table>.
func (d pgDatabase) rows(ctx context.Context, table, cluster string, inv busv1.NamespacedName) (pgExport, error) {
	conn, err := pgx.Connect(ctx, d.DSN)
	if err != nil {
		return pgExport{}, err
	}
	defer func() { _ = conn.Close(ctx) }()
	rs, err := conn.Query(ctx, `SELECT target_namespace, target_name, resource_namespace, resource_name, source_uid,
	  "group", version, kind, attributes, checksum, revision FROM public.`+pgx.Identifier{table}.Sanitize()+`
	  WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, cluster, inv.Namespace, inv.Name)
	if err != nil {
		return pgExport{}, err
	}
	defer rs.Close()
	out := pgExport{Rows: []busv1.Row{}, Checksums: map[string]bool{}, Revisions: map[int64]bool{}}
	for rs.Next() {
		var r busv1.Row
		var attrs []byte
		var sum string
		var rev int64
		if err := rs.Scan(&r.TargetNamespace, &r.TargetName, &r.Namespace, &r.Name, &r.UID,
			&r.Group, &r.Version, &r.Kind, &attrs, &sum, &rev); err != nil {
			return pgExport{}, err
		}
		if err := json.Unmarshal(attrs, &r.Attributes); err != nil {
			return pgExport{}, fmt.Errorf("decode attributes of %s: %w", r.UID, err)
		}
		out.Rows = append(out.Rows, r)
		out.Checksums[sum], out.Revisions[rev] = true, true
	}
	return out, rs.Err()
}

// waitRows waits until table holds exactly rows for (cluster, inventory),
// every row stamped with their checksum.
func (d pgDatabase) waitRows(t *testing.T, table, cluster string, inv busv1.NamespacedName, rows []busv1.Row, dump string) {
	t.Helper()
	want := norm(t, rows)
	sum := checksum(t, rows)
	eventually(t, waitFor, fmt.Sprintf("rows of %s/%s in %s", cluster, inv, table), func() error {
		got, err := d.rows(t.Context(), table, cluster, inv)
		if err != nil {
			return err
		}
		got.Rows = norm(t, got.Rows)
		if diff := cmp.Diff(want, got.Rows, cmpopts.EquateEmpty()); diff != "" {
			return fmt.Errorf("rows (-want +got):\n%s", diff)
		}
		if len(rows) > 0 && (len(got.Checksums) != 1 || !got.Checksums[sum]) {
			return fmt.Errorf("rows carry checksums %v, want only %s", got.Checksums, sum)
		}
		return nil
	}, dump)
}
