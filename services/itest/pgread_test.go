package itest

import (
	"context"
	"encoding/json"
	"errors"
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

// pgExport is what a table holds for one (cluster, inventory): its rows,
// the checksums they carry (each row the checksum of the export that last
// wrote it) and the state table's checksum and revision.
type pgExport struct {
	Rows      []busv1.Row
	Checksums map[string]bool
	Checksum  string
	Revision  int64
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
	out := pgExport{Rows: []busv1.Row{}, Checksums: map[string]bool{}}
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
		out.Checksums[sum] = true
	}
	if err := rs.Err(); err != nil {
		return pgExport{}, err
	}
	err = conn.QueryRow(ctx, `SELECT checksum, revision FROM public.`+pgx.Identifier{table + "_state"}.Sanitize()+`
	  WHERE cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`, cluster, inv.Namespace, inv.Name).
		Scan(&out.Checksum, &out.Revision)
	if err != nil && !errors.Is(err, pgx.ErrNoRows) {
		return pgExport{}, fmt.Errorf("read state of %s/%s: %w", cluster, inv, err)
	}
	return out, nil
}

// waitRows waits until table holds exactly rows for (cluster, inventory)
// and its state table their checksum.
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
		if got.Checksum != sum {
			return fmt.Errorf("state checksum %s, want %s", got.Checksum, sum)
		}
		return nil
	}, dump)
}

// queryRow runs a query returning one row into dest.
func (d pgDatabase) queryRow(ctx context.Context, sql string, args []any, dest ...any) error {
	conn, err := pgx.Connect(ctx, d.DSN)
	if err != nil {
		return err
	}
	defer func() { _ = conn.Close(ctx) }()
	return conn.QueryRow(ctx, sql, args...).Scan(dest...)
}

// texts runs a query whose columns are all text and returns its rows.
func (d pgDatabase) texts(ctx context.Context, sql string, args ...any) ([][]string, error) {
	conn, err := pgx.Connect(ctx, d.DSN)
	if err != nil {
		return nil, err
	}
	defer func() { _ = conn.Close(ctx) }()
	rs, err := conn.Query(ctx, sql, args...)
	if err != nil {
		return nil, err
	}
	defer rs.Close()
	var out [][]string
	for rs.Next() {
		vals, err := rs.Values()
		if err != nil {
			return nil, err
		}
		line := make([]string, len(vals))
		for i, v := range vals {
			line[i] = fmt.Sprint(v)
		}
		out = append(out, line)
	}
	return out, rs.Err()
}
