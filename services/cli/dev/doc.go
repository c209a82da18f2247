// Package dev runs every Kollect service in one process: control, the
// collector, the aggregator and the three exporters, on one bus (an
// embedded NATS JetStream server unless a URL is given) against one API
// server. `kollect dev` runs it against the current kubeconfig context; the
// system tests (services/itest) run it against envtest and real sink
// servers. It wires the services' own Run functions and adds no behaviour:
// what runs here runs the same way when the services are deployed apart.
package dev
