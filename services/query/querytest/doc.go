// Package querytest runs the query service for tests and benchmarks, the
// way a cluster runs it: behind a real kube-apiserver's aggregation layer
// (an APIService and an ExternalName Service naming localhost), on an
// embedded NATS server, with histories published the way the aggregator
// stores them: rows as content-addressed chunks and a manifest in the
// envelope object store, an event per revision on the inventory's snapshot
// subject with the previous checksum and the delta from the previous
// revision, at the times the test chooses.
package querytest
