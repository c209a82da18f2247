// Package demo runs Kollect end to end on one machine, as `make demo` does:
// a real kube-apiserver and etcd, NATS JetStream, PostgreSQL and a Git
// server, and every service (control, collector, aggregator, snapshot,
// database and event exporters) as its own process started from the built
// binaries with the flags a deployment would give them. It creates sample
// workloads, applies example resources from docs/examples plus a Git and a
// PostgreSQL sink pointing at the local servers, prints the exported Git tree
// and a SQL query of the inventory table, then changes a Deployment and shows
// the new commit and row. Stopping it stops every process and removes every
// file it made.
package demo
