package bus

import (
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Root is the first token of every Kollect subject.
const Root = "kollect"

// Streams.
const (
	// StreamSnapshots holds snapshot events, one subject per inventory, with
	// bounded history for replay.
	StreamSnapshots = "KOLLECT_SNAPSHOTS"
	// StreamStatus holds the latest status report per service, object and
	// section.
	StreamStatus = "KOLLECT_STATUS"
	// StreamDeadLetters holds dead letters, bounded by count and age.
	StreamDeadLetters = "KOLLECT_DEADLETTERS"
)

// KV buckets.
const (
	// BucketConfig holds compiled config, one key per object (ConfigKey).
	BucketConfig = "kollect-config"
	// BucketRows holds the collector's rows, one key per (target, uid)
	// (RowKey).
	BucketRows = "kollect-rows"
	// BucketExportState holds the last delivery per (inventory, sink)
	// (ExportStateKey).
	BucketExportState = "kollect-export-state"
	// BucketLeases holds leader leases of services that elect their active
	// replica over the bus, one key per service (LeaseKey).
	BucketLeases = "kollect-leases"
)

// ObjectStoreEnvelopes holds envelopes too large for a bus message, one object
// per (inventory, revision) (EnvelopeObjectName).
const ObjectStoreEnvelopes = "kollect-envelopes"

// KVStreamName returns the name of the stream behind a KV bucket, as NATS
// names it; permissions and stream-level tools need it.
func KVStreamName(bucket string) string { return "KV_" + bucket }

// ObjectStoreStreamName returns the name of the stream behind an object store,
// as NATS names it.
func ObjectStoreStreamName(store string) string { return "OBJ_" + store }

// ExporterConsumer returns the durable consumer on StreamSnapshots shared by
// every replica of the family's exporter.
func ExporterConsumer(f busv1.Family) string {
	return string(f.Exporter())
}

// ConnTestQueue returns the queue group in which the family's exporter
// replicas answer connection tests, so that one replica answers each request.
func ConnTestQueue(f busv1.Family) string {
	return string(f.Exporter())
}
