// Package eventexporter is the exporter of the event family: it runs the
// shared exporter runtime (pkg/exporter) with the backends that publish
// envelopes as messages, listed once in Backends (its imports are the SDK
// list).
// Splitting envelopes into parts lives in internal/parts; the runtime owns
// ordering, retries, claims, status and credentials.
package eventexporter
