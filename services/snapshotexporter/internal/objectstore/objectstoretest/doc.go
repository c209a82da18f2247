// Package objectstoretest reads back what the object-store sinks store, for
// the s3 and gcs tests: a sinktest.Reader over a plain object getter (the
// backend's SDK, never the sink) that decompresses and parses JSON, NDJSON
// and Parquet independently of the writer's code, and a Parquet column dump
// for golden files.
package objectstoretest
