// Package loadtest drives the whole Kollect system at scale against a real
// kube-apiserver and reports what it measured.
//
// It owns the load scenario: the peers and every service as its own process
// (through deploy/demo), N objects of several kinds (a custom resource among
// them) across namespaces, the shape of Kollect resources that splits them
// (shape.go: a Target per kind and an inventory per namespace, a cluster
// inventory) and the PostgreSQL and Git sinks, and the
// measurements (initial sync, change-to-sink latency, delete propagation,
// per-process RSS and CPU, bus backlog), the Markdown/JSON report and the PNG
// plot. It also times `kollect collect` on the same objects.
//
// It does not own the services or the sinks: it only reads what they write,
// and it is not part of `go test`: `make loadtest TIER=…` runs it.
package loadtest
