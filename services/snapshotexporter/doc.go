// Package snapshotexporter is the exporter of the snapshot family: it runs
// the shared exporter runtime (pkg/exporter) with the backends that write
// files, listed once in Backends (its imports are the SDK list). The
// projection of a snapshot into files lives in pkg/tree (the tree sinks) and
// internal/objectstore (the object stores); the runtime owns ordering,
// retries, claims, status and credentials.
package snapshotexporter
