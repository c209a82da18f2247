// Package demo runs Kollect end to end on this machine for `make demo`: a
// real kube-apiserver and etcd (the binaries `make tools` builds), an
// embedded NATS JetStream bus, and the control, collector and aggregator
// services. It creates sample workloads and Kollect resources, shows the
// canonical snapshot the aggregator publishes, changes a Deployment and shows
// the next revision with its delta.
//
// The exporters (Git, S3, Postgres, ...) are not part of the demo yet: the
// snapshot is read back from the bus, where every exporter reads it.
package demo
