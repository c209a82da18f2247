package bigquery

import (
	"regexp"
	"strings"

	"cloud.google.com/go/bigquery"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// StateSuffix is appended to the table's name to name the state table.
const StateSuffix = "_state"

// scopeSQL selects one (cluster, inventory) of a table.
const scopeSQL = "cluster = @cluster AND inventory_namespace = @inventory_namespace AND inventory_name = @inventory_name"

// stagedColumns are the staging table's columns, in load order; the other
// columns of the table come from query parameters.
var stagedColumns = []string{"target_namespace", "target_name", "source_uid", "resource_namespace",
	"resource_name", "group", "version", "kind", "attributes"}

// tableSchema is the schema of the data table (docs/contract.md: the Postgres
// columns, attributes as JSON).
func tableSchema() bigquery.Schema {
	s := bigquery.Schema{
		{Name: "cluster", Type: bigquery.StringFieldType, Required: true},
		{Name: "inventory_namespace", Type: bigquery.StringFieldType, Required: true},
		{Name: "inventory_name", Type: bigquery.StringFieldType, Required: true},
	}
	for _, c := range stagedColumns[:len(stagedColumns)-1] {
		s = append(s, &bigquery.FieldSchema{Name: c, Type: bigquery.StringFieldType, Required: true})
	}
	return append(s,
		&bigquery.FieldSchema{Name: "attributes", Type: bigquery.JSONFieldType},
		&bigquery.FieldSchema{Name: "checksum", Type: bigquery.StringFieldType, Required: true},
		&bigquery.FieldSchema{Name: "revision", Type: bigquery.IntegerFieldType, Required: true},
		&bigquery.FieldSchema{Name: "exported_at", Type: bigquery.TimestampFieldType, Required: true},
	)
}

// stagingSchema is the schema of a staging table: the row columns, with
// attributes as JSON text (parsed by the INSERT), and the typed columns.
func stagingSchema(cols []typedColumn) bigquery.Schema {
	s := bigquery.Schema{}
	for _, c := range stagedColumns {
		s = append(s, &bigquery.FieldSchema{Name: c, Type: bigquery.StringFieldType})
	}
	return append(s, columnSchema(cols)...)
}

// stateSchema is the schema of the state table.
func stateSchema() bigquery.Schema {
	return bigquery.Schema{
		{Name: "cluster", Type: bigquery.StringFieldType, Required: true},
		{Name: "inventory_namespace", Type: bigquery.StringFieldType, Required: true},
		{Name: "inventory_name", Type: bigquery.StringFieldType, Required: true},
		{Name: "revision", Type: bigquery.IntegerFieldType, Required: true},
		{Name: "checksum", Type: bigquery.StringFieldType, Required: true},
		{Name: "exported_at", Type: bigquery.TimestampFieldType, Required: true},
	}
}

// statement is one parameterised SQL statement.
type statement struct {
	SQL    string
	Params []bigquery.QueryParameter
}

// params are the query parameters of env: the only values, besides the
// load payload, that come from a snapshot.
func params(env busv1.Envelope) []bigquery.QueryParameter {
	return []bigquery.QueryParameter{
		{Name: "cluster", Value: env.Cluster},
		{Name: "inventory_namespace", Value: env.Inventory.Namespace},
		{Name: "inventory_name", Value: env.Inventory.Name},
		{Name: "revision", Value: sink.Revision64(env.Revision)},
		{Name: "checksum", Value: env.Checksum},
		{Name: "exported_at", Value: env.ExportedAt},
		{Name: "previous_checksum", Value: env.PreviousChecksum},
		{Name: "item_count", Value: int64(env.ItemCount)},
	}
}

// quoted backquotes a column name (group is a reserved word).
func quoted(cols []string) string { return strings.Join(quotedList(cols), ", ") }

// replaceStatements replace the inventory's rows with those of staging (no
// INSERT when staging is empty), typed columns cols included, and record
// env in the state. The state is
// first marked in progress (checksum ”), so that when the statements run
// without a transaction and stop halfway, the next write rewrites the rows.
func replaceStatements(data, staging tableRef, env busv1.Envelope, typed []typedColumn) []statement {
	state := data.with(data.Table + StateSuffix)
	stmts := []statement{
		{SQL: "UPDATE " + state.sql() + " SET checksum = '' WHERE " + scopeSQL},
		{SQL: "DELETE FROM " + data.sql() + " WHERE " + scopeSQL},
	}
	if staging.Table != "" {
		cols := append([]string{"cluster", "inventory_namespace", "inventory_name"}, stagedColumns...)
		cols = append(cols, "checksum", "revision", "exported_at")
		// Parameters in a select list have no column to take a type from: the
		// casts state them (BigQuery knows them from the request; the emulator
		// needs them).
		sel := append([]string{"CAST(@cluster AS STRING)", "CAST(@inventory_namespace AS STRING)", "CAST(@inventory_name AS STRING)"},
			quotedList(stagedColumns[:len(stagedColumns)-1])...)
		sel = append(sel, "PARSE_JSON(`attributes`)", "CAST(@checksum AS STRING)", "CAST(@revision AS INT64)", "CAST(@exported_at AS TIMESTAMP)")
		cols, sel = append(cols, names(typed)...), append(sel, quotedList(names(typed))...)
		stmts = append(stmts, statement{SQL: "INSERT INTO " + data.sql() + " (" + quoted(cols) + ") SELECT " +
			strings.Join(sel, ", ") + " FROM " + staging.sql()})
	}
	return withParams(append(stmts, stateStatements(data)...), env)
}

// stateStatements record the snapshot in the state table.
func stateStatements(data tableRef) []statement {
	state := data.with(data.Table + StateSuffix)
	return []statement{
		{SQL: "DELETE FROM " + state.sql() + " WHERE " + scopeSQL},
		{SQL: "INSERT INTO " + state.sql() + " (cluster, inventory_namespace, inventory_name, revision, checksum, exported_at) " +
			"VALUES (@cluster, @inventory_namespace, @inventory_name, @revision, @checksum, @exported_at)"},
	}
}

// deleteStatements remove the inventory's rows and state.
func deleteStatements(data tableRef, env busv1.Envelope) []statement {
	state := data.with(data.Table + StateSuffix)
	return withParams([]statement{
		{SQL: "DELETE FROM " + data.sql() + " WHERE " + scopeSQL},
		{SQL: "DELETE FROM " + state.sql() + " WHERE " + scopeSQL},
	}, env)
}

// readStateStatement reads the inventory's state.
func readStateStatement(data tableRef, env busv1.Envelope) statement {
	state := data.with(data.Table + StateSuffix)
	return withParams([]statement{{SQL: "SELECT revision, checksum FROM " + state.sql() + " WHERE " + scopeSQL +
		" ORDER BY revision DESC LIMIT 1"}}, env)[0]
}

// names are the names of cols.
func names(cols []typedColumn) []string {
	out := make([]string, len(cols))
	for i, c := range cols {
		out[i] = c.Name
	}
	return out
}

// quotedList backquotes each column name.
func quotedList(cols []string) []string {
	q := make([]string, len(cols))
	for i, c := range cols {
		q[i] = "`" + c + "`"
	}
	return q
}

var paramRef = regexp.MustCompile(`@([a-z_]+)`)

// withParams gives each statement the parameters of env it references.
func withParams(stmts []statement, env busv1.Envelope) []statement {
	all := params(env)
	out := make([]statement, 0, len(stmts))
	for _, st := range stmts {
		used := map[string]bool{}
		for _, m := range paramRef.FindAllStringSubmatch(st.SQL, -1) {
			used[m[1]] = true
		}
		for _, p := range all {
			if used[p.Name] {
				st.Params = append(st.Params, p)
			}
		}
		out = append(out, st)
	}
	return out
}

// script joins stmts into one multi-statement transaction.
func script(stmts []statement) statement {
	var b strings.Builder
	b.WriteString("BEGIN TRANSACTION;\n")
	seen := map[string]bool{}
	var ps []bigquery.QueryParameter
	for _, s := range stmts {
		b.WriteString(s.SQL + ";\n")
		for _, p := range s.Params {
			if !seen[p.Name] {
				seen[p.Name] = true
				ps = append(ps, p)
			}
		}
	}
	b.WriteString("COMMIT TRANSACTION;")
	return statement{SQL: b.String(), Params: ps}
}
