// Package bigquery is the bigquery backend of the database exporter: it
// keeps a BigQuery table equal to the latest snapshot of each bound
// inventory, one row per collected object (docs/contract.md, BigQuery
// projection).
//
// It owns the table layout (the Postgres columns with attributes as JSON,
// day-partitioned on exported_at, clustered on cluster and inventory), the
// state table <table>_state, provisioning (dataset and tables in ensure
// mode, a schema check in existing mode), the NDJSON load of a snapshot into
// a per-export staging table, and the parameterised DML that applies it:
// a scoped DELETE and an INSERT from staging, then the state, in one
// multi-statement transaction unless the Backend turns transactions off
// (emulators). No SQL text is ever built from row content: rows travel in
// the load payload, the inventory and revision in query parameters, and
// identifiers come from the validated spec.
//
// It does not decide when to write (the exporter runtime does), stamp
// envelopes, or register itself: the database exporter service lists it.
package bigquery
