package bus

import (
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// duplicateWindow is how long a stream remembers Nats-Msg-Id values; it may
// not exceed the stream's max age.
func duplicateWindow(maxAge time.Duration) time.Duration {
	const window = 2 * time.Minute
	if maxAge > 0 && maxAge < window {
		return maxAge
	}
	return window
}

func (o Options) streams() []StreamEntry {
	base := func(name, subject, desc string, maxAge time.Duration) jetstream.StreamConfig {
		return jetstream.StreamConfig{
			Name: name, Description: desc, Subjects: []string{subject},
			Retention: jetstream.LimitsPolicy, Discard: jetstream.DiscardOld,
			MaxAge: maxAge, MaxMsgs: -1, MaxBytes: -1, MaxMsgsPerSubject: -1,
			MaxMsgSize: o.MaxMessageBytes, Storage: o.Storage, Replicas: o.Replicas,
			Duplicates: duplicateWindow(maxAge), AllowDirect: true, MaxConsumers: -1,
		}
	}
	snapshots := base(StreamSnapshots, SnapshotSubjects,
		"Kollect snapshot events, one subject per inventory", o.SnapshotMaxAge)
	snapshots.MaxMsgsPerSubject, snapshots.MaxBytes = o.SnapshotHistory, o.SnapshotMaxBytes
	status := base(StreamStatus, StatusSubjects,
		"Kollect status reports, the latest per service, object and binding", o.StatusMaxAge)
	status.MaxMsgsPerSubject = 1
	dead := base(StreamDeadLetters, DeadLetterSubjects,
		"Kollect dead letters: messages terminated after a permanent failure", o.DeadLetterMaxAge)
	dead.MaxMsgsPerSubject, dead.MaxMsgs = o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs
	return []StreamEntry{
		{Config: snapshots, Purpose: "Snapshot events (busv1.SnapshotEvent), one subject per inventory. " +
			"At most SnapshotHistory events per inventory are kept for replays and backfills; the " +
			"aggregator trims each inventory's history to its own spec.history below that. A restarted " +
			"aggregator reads the latest one back to continue the revision sequence."},
		{Config: status, Purpose: "Status reports (busv1.StatusReport). One message per subject: the latest " +
			"report per service, object and binding, which control folds into conditions."},
		{Config: dead, Purpose: "Dead letters (busv1.DeadLetter): snapshot events an exporter terminated " +
			"after a permanent failure, for operators to inspect. Nothing consumes them automatically. " +
			"One subject per exporter family and inventory, each keeping its newest " +
			"DeadLetterMaxMsgsPerInventory, so one inventory's failures never evict another's."},
	}
}

func (o Options) buckets() []BucketEntry {
	kv := func(name, desc string) jetstream.KeyValueConfig {
		return jetstream.KeyValueConfig{
			Bucket: name, Description: desc, History: 1, MaxValueSize: o.MaxMessageBytes,
			MaxBytes: -1, Storage: o.Storage, Replicas: o.Replicas,
		}
	}
	return []BucketEntry{
		{
			Config:  kv(BucketConfig, "Kollect compiled config, one key per object"),
			Purpose: "Compiled config written by control: one key per Target, inventory and sink, deleted with the object.",
			Writers: services(busv1.ServiceControl),
			Readers: withExporters(busv1.ServiceCollector, busv1.ServiceAggregator),
		},
		{
			Config: kv(BucketRows, "Kollect rows, one key per (target, object uid)"),
			Purpose: "The collector's current rows; a vanished object is a delete marker. The aggregator " +
				"rebuilds every snapshot from it after a restart.",
			Writers: services(busv1.ServiceCollector),
			Readers: services(busv1.ServiceCollector, busv1.ServiceAggregator),
		},
		{
			Config:  kv(BucketExportState, "Kollect last delivery per (inventory, sink)"),
			Purpose: "The last delivered checksum and revision per binding, so a restart does not re-export.",
			Writers: exporters,
			Readers: withExporters(busv1.ServiceAggregator),
		},
		{
			Config: kv(BucketLeases, "Kollect leader leases"),
			Purpose: "Leases of services that coordinate their replicas over the bus, written only with " +
				"compare-and-set: the members and the per-shard leases of the sharded collector and aggregator " +
				"(pkg/shard: <service>.members.<identity>, <service>.shards.<count>.<index>; holder and expiry), and the " +
				"single leader lease of the aggregator's earlier releases (<service>), held retired while the shards run.",
			Writers: services(busv1.ServiceCollector, busv1.ServiceAggregator),
			Readers: services(busv1.ServiceCollector, busv1.ServiceAggregator),
		},
	}
}

func (o Options) objectStores() []ObjectStoreEntry {
	return []ObjectStoreEntry{{
		Config: jetstream.ObjectStoreConfig{
			Bucket: ObjectStoreEnvelopes, Description: "Kollect snapshot chunks, manifests and large deltas",
			MaxBytes: o.EnvelopeStoreMaxBytes, Storage: o.Storage, Replicas: o.Replicas,
		},
		Purpose: "Content-addressed snapshot chunks, manifests and manifest pages (busv1.Manifest) of snapshots larger than " +
			"MaxMessageBytes, and deltas too large for their event. No TTL: the aggregator deletes what no " +
			"retained snapshot event references, after a grace period for readers.",
		Writers: services(busv1.ServiceAggregator),
		Readers: exporters,
	}}
}

func (o Options) consumers() []ConsumerEntry {
	var out []ConsumerEntry
	for _, f := range busv1.Families() {
		out = append(out, ConsumerEntry{
			Stream:  StreamSnapshots,
			Service: f.Exporter(),
			Purpose: "Shared by every " + string(f.Exporter()) + " replica; starts at the latest event of each " +
				"inventory. Events not addressed to a " + string(f) + " sink are acknowledged at once.",
			Config: jetstream.ConsumerConfig{
				Durable:       ExporterConsumer(f),
				Description:   "Kollect " + string(f) + " exporter",
				DeliverPolicy: jetstream.DeliverLastPerSubjectPolicy,
				AckPolicy:     jetstream.AckExplicitPolicy,
				AckWait:       o.ExporterAckWait,
				MaxDeliver:    -1,
				FilterSubject: SnapshotSubjects,
				MaxAckPending: o.ExporterMaxAckPending,
				ReplayPolicy:  jetstream.ReplayInstantPolicy,
			},
		})
	}
	return out
}
