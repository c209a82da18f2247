// Package postgres is the PostgreSQL backend of the database exporter: it
// keeps one table of a PostgreSQL database equal to the latest snapshot of
// every inventory bound to a KollectDatabaseSink of type postgres
// (docs/contract.md "Postgres").
//
// It owns the sink's connection pool (pgx, dialled through the egress
// policy), the provisioning of the table and its state table (mode ensure)
// or their verification (mode existing), and the export transaction: one
// transaction per export locks the inventory's state row, bulk-loads the
// snapshot with binary COPY (in primary-key order straight into the table
// when the inventory has no rows yet, else into a temporary staging table),
// rewrites only the rows that changed and inserts the new ones (one MERGE),
// deletes the rows absent from the snapshot (when a count shows there are
// any) and records the applied revision, so that data and revision can
// never disagree. Every
// statement is scoped to (cluster, inventory): rows of other clusters and
// inventories sharing the table are never touched.
//
// It also owns the rows hash of the state table (drift.go): an
// order-independent sum of per-row hashes kept by every write, which the
// drift check of periodic re-exports recomputes to find rows deleted,
// inserted or edited by hand.
//
// It does not decide when to export, retry, or report status (pkg/exporter
// does), and it is not registered here: the database exporter's Run lists
// it.
package postgres
