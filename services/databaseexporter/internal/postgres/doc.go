// Package postgres is the PostgreSQL backend of the database exporter: it
// keeps one table of a PostgreSQL database equal to the latest snapshot of
// every inventory bound to a KollectDatabaseSink of type postgres
// (CONTRACT.md "Postgres").
//
// It owns the sink's connection pool (pgx, dialled through the egress
// policy), the provisioning of the table and its state table (mode ensure)
// or their verification (mode existing), and the export transaction: one
// transaction per export locks the inventory's state row, bulk-loads the
// snapshot with COPY (into a temporary staging table when the inventory
// already has rows), deletes the rows absent from the snapshot, rewrites
// only the rows that changed, inserts the new ones and records the applied
// revision, so that data and revision can never disagree. Every
// statement is scoped to (cluster, inventory): rows of other clusters and
// inventories sharing the table are never touched.
//
// It does not decide when to export, retry, or report status (pkg/exporter
// does), and it is not registered here: the database exporter's Run lists
// it.
package postgres
