// Package exporter is the runtime every exporter family (snapshot, database,
// event) shares: Run consumes the family's durable consumer on the snapshot
// stream and delivers each event to every binding of the family through the
// sinks its backends build, and Serve wires it to the bus and the API server.
// It owns ordering, claims, loading, acknowledgement, retries, the export
// state, status reports, dead letters and connection tests. It owns no
// backend: a backend is written against the small SDK of
// pkg/exporter/backend and lives in its family service.
//
// docs/exporter.md describes each of these behaviours in full.
package exporter
