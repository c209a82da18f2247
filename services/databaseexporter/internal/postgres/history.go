package postgres

import (
	"context"
	"fmt"

	"github.com/jackc/pgx/v5"
)

// History mode (spec.postgres.history.enabled) keeps two more tables next
// to the rows table, written in the export's transaction:
//
//   - <table>_history: every version of every row, SCD type 2. A version is
//     valid from the revision (and export time) that wrote it until the one
//     that changed or removed it; the open version has NULL valid_to_revision
//     and valid_to. A partial unique index keeps one open version per row.
//   - <table>_revisions: one row per revision applied, with its checksum, the
//     previous revision's checksum (the envelope's previousChecksum), item
//     count and export time; kollect verify recomputes the checksums from the
//     history and compares.
//
// After the rows table holds the snapshot, the history follows it with two
// statements: close the open versions whose row is gone or differs, open a
// version for each row without an identical open one. Comparing with the
// rows table, rather than replaying what the export did, keeps one path for
// full writes, deltas and repairs, and brings a history enabled on an
// existing table (or edited by hand) in line at the next export.

var (
	// historyExtraColumns are the columns of the history table after the
	// key and data columns.
	historyExtraColumns = []string{"valid_from_revision", "valid_to_revision", "valid_from", "valid_to"}
	// revisionColumns are the columns of the revisions table.
	revisionColumns = []string{"cluster", "inventory_namespace", "inventory_name", "revision", "checksum",
		"previous_checksum", "item_count", "exported_at"}
)

// historyColumns returns every column of the history table.
func historyColumns() []string {
	cols := append(append([]string{}, keyColumns...), dataColumns...)
	return append(cols, historyExtraColumns...)
}

// createHistory is the DDL of the history table and its indexes: the open
// versions by key (unique), and every version by scope and revision for
// "as of" queries.
func (t table) createHistory() []string {
	open := pgx.Identifier{derived(t.historyName, "_open")}.Sanitize()
	from := pgx.Identifier{derived(t.historyName, "_from")}.Sanitize()
	return []string{`CREATE TABLE IF NOT EXISTS ` + t.history + ` (
  cluster text NOT NULL,
  inventory_namespace text NOT NULL,
  inventory_name text NOT NULL,
  target_namespace text NOT NULL,
  target_name text NOT NULL,
  source_uid text NOT NULL,
  resource_namespace text NOT NULL,
  resource_name text NOT NULL,
  "group" text NOT NULL,
  version text NOT NULL,
  kind text NOT NULL,
  attributes jsonb NOT NULL,
  valid_from_revision bigint NOT NULL,
  valid_to_revision bigint,
  valid_from timestamptz NOT NULL,
  valid_to timestamptz
)`,
		`CREATE UNIQUE INDEX IF NOT EXISTS ` + open + ` ON ` + t.history + ` (` + quoted("", keyColumns) + `) WHERE valid_to_revision IS NULL`,
		`CREATE INDEX IF NOT EXISTS ` + from + ` ON ` + t.history + ` (cluster, inventory_namespace, inventory_name, valid_from_revision)`,
	}
}

// createRevisions is the DDL of the revisions table.
func (t table) createRevisions() string {
	return `CREATE TABLE IF NOT EXISTS ` + t.revisions + ` (
  cluster text NOT NULL,
  inventory_namespace text NOT NULL,
  inventory_name text NOT NULL,
  revision bigint NOT NULL,
  checksum text NOT NULL,
  previous_checksum text NOT NULL,
  item_count integer NOT NULL,
  exported_at timestamptz NOT NULL,
  PRIMARY KEY (cluster, inventory_namespace, inventory_name, revision)
)`
}

// recordHistory makes the scope's open versions equal to its rows at
// sc.revision and records the revision. It runs after the rows table holds
// the snapshot (for a deletion: holds nothing).
func (k *Sink) recordHistory(ctx context.Context, tx pgx.Tx, sc scope) error {
	const sameKey = `t.cluster = h.cluster AND t.inventory_namespace = h.inventory_namespace AND t.inventory_name = h.inventory_name
  AND t.target_namespace = h.target_namespace AND t.target_name = h.target_name AND t.source_uid = h.source_uid`
	const hScoped = `h.cluster = $1 AND h.inventory_namespace = $2 AND h.inventory_name = $3`
	same := `(` + quoted("t.", dataColumns) + `) IS NOT DISTINCT FROM (` + quoted("h.", dataColumns) + `)`
	steps := []struct {
		what, sql string
		args      []any
	}{
		{"close the changed and removed versions", `UPDATE ` + k.t.history + ` AS h SET valid_to_revision = $4, valid_to = $5
WHERE ` + hScoped + ` AND h.valid_to_revision IS NULL
  AND NOT EXISTS (SELECT 1 FROM ` + k.t.rows + ` t WHERE ` + sameKey + ` AND ` + same + `)`,
			sc.args(sc.revision, sc.exportedAt)},
		{"open the new versions", `INSERT INTO ` + k.t.history + ` (` + quoted("", historyColumns()) + `)
SELECT ` + quoted("t.", keyColumns) + `, ` + quoted("t.", dataColumns) + `, $4::bigint, NULL, $5::timestamptz, NULL
FROM ` + k.t.rows + ` t WHERE ` + scoped + `
  AND NOT EXISTS (SELECT 1 FROM ` + k.t.history + ` h WHERE ` + sameKey + ` AND h.valid_to_revision IS NULL)`,
			sc.args(sc.revision, sc.exportedAt)},
		{"record the revision", `INSERT INTO ` + k.t.revisions + ` (` + quoted("", revisionColumns) + `)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8)
ON CONFLICT (cluster, inventory_namespace, inventory_name, revision) DO UPDATE SET checksum = EXCLUDED.checksum,
  previous_checksum = EXCLUDED.previous_checksum, item_count = EXCLUDED.item_count, exported_at = EXCLUDED.exported_at`,
			sc.args(sc.revision, sc.checksum, sc.previous, sc.itemCount, sc.exportedAt)},
	}
	for _, st := range steps {
		if _, err := tx.Exec(ctx, st.sql, st.args...); err != nil {
			return fmt.Errorf("history: %s: %w", st.what, err)
		}
	}
	return nil
}

// rewindHistory discards the scope's history from sc.revision on: the
// versions opened at or after it are deleted, those closed at or after it
// are open again, and the revisions from it on are forgotten. The export
// then records sc.revision as a forward write on the history as it stood
// before it (the first revision of a backfill, sink.Snapshot.BackfillStart).
func (k *Sink) rewindHistory(ctx context.Context, tx pgx.Tx, sc scope) error {
	steps := []struct{ what, sql string }{
		{"delete the versions opened from the backfill on", `DELETE FROM ` + k.t.history + ` t WHERE ` + scoped + ` AND t.valid_from_revision >= $4`},
		{"reopen the versions closed from the backfill on", `UPDATE ` + k.t.history + ` t SET valid_to_revision = NULL, valid_to = NULL
WHERE ` + scoped + ` AND t.valid_to_revision >= $4`},
		{"forget the revisions from the backfill on", `DELETE FROM ` + k.t.revisions + ` t WHERE ` + scoped + ` AND t.revision >= $4`},
	}
	for _, st := range steps {
		if _, err := tx.Exec(ctx, st.sql, sc.args(sc.revision)...); err != nil {
			return fmt.Errorf("history: rewind to revision %d: %s: %w", sc.revision, st.what, err)
		}
	}
	return nil
}
