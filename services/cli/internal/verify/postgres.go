package verify

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/jackc/pgx/v5"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Postgres reads one inventory from a PostgreSQL sink's tables
// (docs/sinks/postgres.md): the current rows against the state table's
// checksum and, when the history tables exist, every revision of
// <table>_revisions rebuilt from <table>_history.
type Postgres struct {
	// Conn is an open connection to the database.
	Conn *pgx.Conn
	// Schema and Table name the rows table.
	Schema, Table string
	// Cluster and Inventory select the inventory.
	Cluster   string
	Inventory busv1.NamespacedName
}

// name is the quoted name of the table with suffix, as the sink names it
// while that fits 63 bytes (longer ones are refused by Revisions).
func (p Postgres) name(suffix string) string {
	return pgx.Identifier{p.Schema, p.Table + suffix}.Sanitize()
}

// Revisions implements Source: the history's revisions (when the
// revisions table exists) followed by the current rows, recorded as the
// state table's revision.
func (p Postgres) Revisions(ctx context.Context) ([]Revision, error) {
	if len(p.Table)+len("_revisions") > 63 {
		return nil, fmt.Errorf("table %s: names past 63 bytes are shortened by the sink; verify does not support them", p.Table)
	}
	var out []Revision
	var hasHistory bool
	err := p.Conn.QueryRow(ctx, `SELECT to_regclass($1) IS NOT NULL AND to_regclass($2) IS NOT NULL`,
		p.name("_history"), p.name("_revisions")).Scan(&hasHistory)
	if err != nil {
		return nil, fmt.Errorf("look up the history tables of %s: %w", p.name(""), err)
	}
	if hasHistory {
		if out, err = p.history(ctx); err != nil {
			return nil, err
		}
	}
	cur, found, err := p.current(ctx)
	if err != nil || !found {
		return out, err
	}
	// The current rows are checked as their own revision, after the
	// history's revision of the same number.
	return append(out, cur), nil
}

const scope = `cluster = $1 AND inventory_namespace = $2 AND inventory_name = $3`

const rowSelect = `SELECT target_namespace, target_name, resource_namespace, resource_name, source_uid,
  "group", version, kind, attributes::text FROM `

func (p Postgres) args(more ...any) []any {
	return append([]any{p.Cluster, p.Inventory.Namespace, p.Inventory.Name}, more...)
}

// current reads the state row and the rows table.
func (p Postgres) current(ctx context.Context) (Revision, bool, error) {
	r := Revision{Where: "table " + p.name("")}
	var rev int64
	err := p.Conn.QueryRow(ctx, `SELECT revision, checksum FROM `+p.name("_state")+` WHERE `+scope, p.args()...).Scan(&rev, &r.Checksum)
	if err == pgx.ErrNoRows {
		return r, false, nil
	}
	if err != nil {
		return r, false, fmt.Errorf("read the state of %s in %s: %w", p.Inventory, p.name("_state"), err)
	}
	r.Revision = uint64(rev) //nolint:gosec // G115: revisions are written from uint64s below 2^63 (sink.Revision64)
	r.Rows, err = p.rows(ctx, rowSelect+p.name("")+` WHERE `+scope, p.args()...)
	return r, true, err
}

// history rebuilds each revision of the revisions table from the history.
func (p Postgres) history(ctx context.Context) ([]Revision, error) {
	rows, err := p.Conn.Query(ctx, `SELECT revision, checksum, previous_checksum FROM `+p.name("_revisions")+
		` WHERE `+scope+` ORDER BY revision`, p.args()...)
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.name("_revisions"), err)
	}
	var out []Revision
	var rev int64
	var r Revision
	_, err = pgx.ForEachRow(rows, []any{&rev, &r.Checksum, &r.PreviousChecksum}, func() error {
		r.Revision = uint64(rev) //nolint:gosec // G115: as above
		r.Where = fmt.Sprintf("table %s as of revision %d", p.name("_history"), rev)
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", p.name("_revisions"), err)
	}
	for i := range out {
		q := rowSelect + p.name("_history") + ` WHERE ` + scope +
			` AND valid_from_revision <= $4 AND (valid_to_revision IS NULL OR valid_to_revision > $4)`
		rev := int64(out[i].Revision) //nolint:gosec // G115: read from an int64 column above
		if out[i].Rows, err = p.rows(ctx, q, p.args(rev)...); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (p Postgres) rows(ctx context.Context, q string, args ...any) ([]busv1.Row, error) {
	rows, err := p.Conn.Query(ctx, q, args...)
	if err != nil {
		return nil, fmt.Errorf("read rows of %s: %w", p.Inventory, err)
	}
	var out []busv1.Row
	var row busv1.Row
	var attrs string
	_, err = pgx.ForEachRow(rows, []any{&row.TargetNamespace, &row.TargetName, &row.Namespace, &row.Name, &row.UID,
		&row.Group, &row.Version, &row.Kind, &attrs}, func() error {
		r := row
		r.Attributes = nil
		d := json.NewDecoder(strings.NewReader(attrs))
		if err := d.Decode(&r.Attributes); err != nil {
			return fmt.Errorf("row %s: attributes: %w", r.UID, err)
		}
		out = append(out, r)
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("read rows of %s: %w", p.Inventory, err)
	}
	return out, nil
}
