// Package collector is the Kollect collector service: it watches the cluster
// with one shared informer per GVK, selects and extracts the objects of every
// KollectTarget and KollectClusterTarget compiled into the config bucket, and
// keeps the rows bucket equal to what it sees: one row per (Target, object),
// written only when it changes, deleted when the object goes away or leaves
// the selection. It publishes a status report per Target and serves
// Prometheus metrics and health probes. One replica is active at a time
// (leader election on a Lease); a standby that takes over rebuilds its view
// from the bus and a relist, so no row is lost or duplicated.
//
// Run wires the internal packages: configwatch (config bucket), informers
// (informers, discovery, transforms), engine (selection, extraction, rows,
// sweeps), rowstore (rows bucket), status (reports) and metrics.
package collector
