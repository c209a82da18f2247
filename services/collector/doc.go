// Package collector is the Kollect collector service: it watches the cluster
// with one shared informer per GVK, selects and extracts the objects of every
// KollectTarget and KollectClusterTarget compiled into the config bucket, and
// keeps the rows bucket equal to what it sees: one row per (Target, object),
// written only when it changes, deleted when the object goes away or leaves
// the selection. It publishes a status report per Target and serves
// Prometheus metrics and health probes. Every replica is active: the
// Targets are spread over --shards shards (shard.Of of <namespace>/<name>),
// and the shards over the live replicas through leases on the bus
// (pkg/shard, node.go). A replica works only on the Targets of the shards
// it holds: it loads their rows when it takes a shard, evaluates their
// objects and sweeps their rows (unchanged rows are not written again), and
// stops writing them before it gives the shard back, so each Target's rows
// have one writer at a time and no row is lost or duplicated by a move.
//
// Run wires the internal packages: configwatch (config bucket), informers
// (informers, discovery, transforms), engine (selection, extraction, rows,
// sweeps), rowstore (rows bucket), status (reports) and metrics.
package collector
