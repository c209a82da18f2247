// Package itest holds the system tests of Kollect: every service (control,
// the collector, the aggregator and the three exporters, wired by
// services/cli/dev) runs in the test process on an embedded NATS JetStream
// server against a real kube-apiserver (envtest) and real sink servers (git
// http-backend, PostgreSQL, an S3 server, an in-process Kafka cluster and a
// second NATS server). Each scenario applies custom resources and asserts
// the exact content each sink holds afterwards, read back from the sink
// server itself.
//
// It owns the scenarios and their read-back helpers only: it adds no
// behaviour, and it does not re-wire the services (services/cli/dev does).
// The package has no non-test code besides this comment.
package itest
