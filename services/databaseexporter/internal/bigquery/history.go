package bigquery

import (
	"strings"

	"cloud.google.com/go/bigquery"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// History mode (spec.bigquery.history.enabled) keeps two more tables next
// to the data table, the same as the postgres sink's, written by the
// export's statements (in its transaction unless transactions are off):
//
//   - <table>_history: every version of every row, SCD type 2. A version is
//     valid from the revision (and export time) that wrote it until the one
//     that changed or removed it; the open version has NULL
//     valid_to_revision and valid_to.
//   - <table>_revisions: one row per revision applied, with its checksum, the
//     previous revision's checksum (the envelope's previousChecksum), item
//     count and export time.
//
// After the data table holds the snapshot, two statements bring the history
// in line with it: close the open versions whose row is gone or differs,
// open a version for each row without an open one. Comparing with the data
// table rather than replaying what the export did keeps one path for full
// writes and repairs, and brings a history enabled on an existing table in
// line at the next export.
const (
	// HistorySuffix is appended to the table's name to name the history table.
	HistorySuffix = "_history"
	// RevisionsSuffix is appended to the table's name to name the revisions table.
	RevisionsSuffix = "_revisions"
)

// keyColumns identify a row of an inventory; versionColumns are what a
// version of it holds.
var (
	keyColumns     = []string{"cluster", "inventory_namespace", "inventory_name", "target_namespace", "target_name", "source_uid"}
	versionColumns = []string{"resource_namespace", "resource_name", "group", "version", "kind", "attributes"}
)

// historySchema is the schema of the history table.
func historySchema() bigquery.Schema {
	s := bigquery.Schema{}
	for _, c := range append(append([]string{}, keyColumns...), versionColumns[:len(versionColumns)-1]...) {
		s = append(s, &bigquery.FieldSchema{Name: c, Type: bigquery.StringFieldType, Required: true})
	}
	return append(s,
		&bigquery.FieldSchema{Name: "attributes", Type: bigquery.JSONFieldType},
		&bigquery.FieldSchema{Name: "valid_from_revision", Type: bigquery.IntegerFieldType, Required: true},
		&bigquery.FieldSchema{Name: "valid_to_revision", Type: bigquery.IntegerFieldType},
		&bigquery.FieldSchema{Name: "valid_from", Type: bigquery.TimestampFieldType, Required: true},
		&bigquery.FieldSchema{Name: "valid_to", Type: bigquery.TimestampFieldType},
	)
}

// revisionsSchema is the schema of the revisions table.
func revisionsSchema() bigquery.Schema {
	return bigquery.Schema{
		{Name: "cluster", Type: bigquery.StringFieldType, Required: true},
		{Name: "inventory_namespace", Type: bigquery.StringFieldType, Required: true},
		{Name: "inventory_name", Type: bigquery.StringFieldType, Required: true},
		{Name: "revision", Type: bigquery.IntegerFieldType, Required: true},
		{Name: "checksum", Type: bigquery.StringFieldType, Required: true},
		{Name: "previous_checksum", Type: bigquery.StringFieldType, Required: true},
		{Name: "item_count", Type: bigquery.IntegerFieldType, Required: true},
		{Name: "exported_at", Type: bigquery.TimestampFieldType, Required: true},
	}
}

// scopedAs is scopeSQL for the table aliased alias.
func scopedAs(alias string) string {
	return alias + ".cluster = @cluster AND " + alias + ".inventory_namespace = @inventory_namespace AND " +
		alias + ".inventory_name = @inventory_name"
}

// versionText is the canonical text of the version of the row alias names:
// its key and version columns, the attributes as their JSON text.
func versionText(alias string) string {
	cols := make([]string, 0, len(keyColumns)+len(versionColumns))
	for _, c := range append(append([]string{}, keyColumns...), versionColumns[:len(versionColumns)-1]...) {
		cols = append(cols, alias+".`"+c+"`")
	}
	cols = append(cols, "IFNULL(TO_JSON_STRING("+alias+".attributes), '') AS attributes")
	return "TO_JSON_STRING(STRUCT(" + strings.Join(cols, ", ") + "))"
}

// historyStatements make the scope's open versions equal to its rows in
// the data table at env's revision and record the revision. They run after
// the data table holds the snapshot (for a deletion: holds nothing). A new
// version copies the row's typed columns typed; they are not part of what
// makes a version differ, being derived from its attributes.
func historyStatements(data tableRef, typed []typedColumn) []statement {
	hist, revs := data.with(data.Table+HistorySuffix), data.with(data.Table+RevisionsSuffix)
	var sameKey []string
	for _, c := range keyColumns {
		sameKey = append(sameKey, "t.`"+c+"` = h.`"+c+"`")
	}
	cols := append(append([]string{}, keyColumns...), versionColumns...)
	cols = append(cols, "valid_from_revision", "valid_to_revision", "valid_from", "valid_to")
	sel := make([]string, 0, len(cols))
	for _, c := range append(append([]string{}, keyColumns...), versionColumns...) {
		sel = append(sel, "t.`"+c+"`")
	}
	sel = append(sel, "CAST(@revision AS INT64)", "CAST(NULL AS INT64)", "CAST(@exported_at AS TIMESTAMP)", "CAST(NULL AS TIMESTAMP)")
	for _, c := range typed {
		cols, sel = append(cols, c.Name), append(sel, "t.`"+c.Name+"`")
	}
	return []statement{
		// Not a correlated NOT EXISTS: the emulator (go-zetasqlite) does
		// not resolve the UPDATE's alias inside a subquery, and left every
		// changed and removed version open.
		{SQL: "UPDATE " + hist.sql() + " h SET valid_to_revision = @revision, valid_to = @exported_at WHERE " + scopedAs("h") +
			" AND h.valid_to_revision IS NULL AND " + versionText("h") + " NOT IN (SELECT " + versionText("t") + " FROM " +
			data.sql() + " t WHERE " + scopedAs("t") + ")"},
		{SQL: "INSERT INTO " + hist.sql() + " (" + quoted(cols) + ") SELECT " + strings.Join(sel, ", ") + " FROM " + data.sql() +
			" t WHERE " + scopedAs("t") + " AND NOT EXISTS (SELECT 1 FROM " + hist.sql() + " h WHERE " +
			strings.Join(sameKey, " AND ") + " AND h.valid_to_revision IS NULL)"},
		{SQL: "DELETE FROM " + revs.sql() + " WHERE " + scopeSQL + " AND revision = @revision"},
		{SQL: "INSERT INTO " + revs.sql() + " (cluster, inventory_namespace, inventory_name, revision, checksum, previous_checksum, item_count, exported_at) " +
			"VALUES (@cluster, @inventory_namespace, @inventory_name, @revision, @checksum, @previous_checksum, @item_count, @exported_at)"},
	}
}

// withHistory appends the history statements to stmts when on; typed are
// the typed columns both tables have.
func withHistory(on bool, data tableRef, stmts []statement, env busv1.Envelope, typed []typedColumn) []statement {
	if !on {
		return stmts
	}
	return append(stmts, withParams(historyStatements(data, typed), env)...)
}

// rewindStatements discard the scope's history from env's revision on:
// the versions opened at or after it are deleted, those closed at or after
// it are open again, the revisions from it on are forgotten.
func rewindStatements(data tableRef) []statement {
	hist, revs := data.with(data.Table+HistorySuffix), data.with(data.Table+RevisionsSuffix)
	return []statement{
		{SQL: "DELETE FROM " + hist.sql() + " h WHERE " + scopedAs("h") + " AND h.valid_from_revision >= @revision"},
		{SQL: "UPDATE " + hist.sql() + " h SET valid_to_revision = NULL, valid_to = NULL WHERE " + scopedAs("h") +
			" AND h.valid_to_revision >= @revision"},
		{SQL: "DELETE FROM " + revs.sql() + " WHERE " + scopeSQL + " AND revision >= @revision"},
	}
}

// withRewind puts the rewind statements before stmts when on (the first
// revision of a backfill, sink.Snapshot.BackfillStart): in the same
// transaction, the export then records the revision on the history as it
// stood before it.
func withRewind(on bool, data tableRef, stmts []statement, env busv1.Envelope) []statement {
	if !on {
		return stmts
	}
	return append(withParams(rewindStatements(data), env), stmts...)
}
