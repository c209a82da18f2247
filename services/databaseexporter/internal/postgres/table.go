package postgres

import (
	"crypto/sha256"
	"encoding/hex"
	"strings"

	"github.com/jackc/pgx/v5"
)

// maxIdentifier is PostgreSQL's identifier length (NAMEDATALEN-1); longer
// names are silently truncated by the server, so derived names are
// shortened here instead, keeping them distinct.
const maxIdentifier = 63

// Column lists of the contract (docs/contract.md "Postgres"), in table order.
var (
	// keyColumns are the primary key of the rows table.
	keyColumns = []string{"cluster", "inventory_namespace", "inventory_name", "target_namespace", "target_name", "source_uid"}
	// dataColumns are the row's non-key columns the snapshot supplies.
	dataColumns = []string{"resource_namespace", "resource_name", "group", "version", "kind", "attributes"}
	// exportColumns identify the export that last changed the row.
	exportColumns = []string{"checksum", "revision", "exported_at"}
	// stateColumns are the columns of the state table.
	stateColumns = []string{"cluster", "inventory_namespace", "inventory_name", "revision", "checksum", "item_count", "exported_at"}
	// stagingColumns are the columns copied per row into the staging table.
	stagingColumns = []string{"target_namespace", "target_name", "source_uid", "resource_namespace", "resource_name", "group", "version", "kind", "attributes"}
)

// rowColumns returns every column of the rows table.
func rowColumns() []string {
	cols := append([]string{}, keyColumns...)
	cols = append(cols, dataColumns...)
	return append(cols, exportColumns...)
}

// table names the rows table and its state table, raw and quoted.
type table struct {
	schema, name, stateName string
	// rows and state are the sanitized, schema-qualified names.
	rows, state string
	// withHistory is set in history mode (history.go); historyName and
	// revisionsName, history and revisions name its tables.
	withHistory                bool
	historyName, revisionsName string
	history, revisions         string
}

func newTable(schema, name string, withHistory bool) table {
	t := table{schema: schema, name: name, stateName: derived(name, "_state"), withHistory: withHistory,
		historyName: derived(name, "_history"), revisionsName: derived(name, "_revisions")}
	t.rows = pgx.Identifier{schema, name}.Sanitize()
	t.state = pgx.Identifier{schema, t.stateName}.Sanitize()
	t.history = pgx.Identifier{schema, t.historyName}.Sanitize()
	t.revisions = pgx.Identifier{schema, t.revisionsName}.Sanitize()
	return t
}

// String names the rows table in messages.
func (t table) String() string { return t.rows }

// lockKey is the advisory lock key that serialises provisioning of this
// table between replicas.
func (t table) lockKey() string { return "kollect.dev/postgres:" + t.schema + "." + t.name }

// derived returns name+suffix, shortened with a hash of name when it would
// exceed PostgreSQL's identifier length.
func derived(name, suffix string) string {
	if len(name)+len(suffix) <= maxIdentifier {
		return name + suffix
	}
	sum := sha256.Sum256([]byte(name))
	h := "_" + hex.EncodeToString(sum[:])[:8]
	return name[:maxIdentifier-len(suffix)-len(h)] + h + suffix
}

// quoted returns the sanitized identifiers of cols joined by ", ", each
// prefixed with prefix ("" or an alias and a dot).
func quoted(prefix string, cols []string) string {
	parts := make([]string, len(cols))
	for i, c := range cols {
		parts[i] = prefix + pgx.Identifier{c}.Sanitize()
	}
	return strings.Join(parts, ", ")
}

// createRows is the DDL of the rows table. Its only index is the primary
// key, which serves every statement of an export: each further index slows
// every export (measured: a ("group", kind, cluster) index cost a quarter of
// the server's CPU of a full export), so query indexes are the user's
// choice (docs/sinks/postgres.md suggests some).
func (t table) createRows() string {
	return `CREATE TABLE IF NOT EXISTS ` + t.rows + ` (
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
  checksum text NOT NULL,
  revision bigint NOT NULL,
  exported_at timestamptz NOT NULL,
  PRIMARY KEY (cluster, inventory_namespace, inventory_name, target_namespace, target_name, source_uid)
)`
}

// createState is the DDL of the state table.
func (t table) createState() string {
	return `CREATE TABLE IF NOT EXISTS ` + t.state + ` (
  cluster text NOT NULL,
  inventory_namespace text NOT NULL,
  inventory_name text NOT NULL,
  revision bigint NOT NULL,
  checksum text NOT NULL,
  item_count integer NOT NULL,
  exported_at timestamptz NOT NULL,
  rows_hash numeric,
  PRIMARY KEY (cluster, inventory_namespace, inventory_name)
)`
}
