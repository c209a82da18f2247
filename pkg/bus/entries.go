package bus

import (
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Example objects for the catalogue; the examples in docs/bus.md are built
// from them by the same builders services call.
var (
	exampleInventory = busv1.NamespacedName{Namespace: "team-a", Name: "web.apps"}
	exampleCluster   = busv1.NamespacedName{Name: "fleet"}
	exampleSink      = busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "git-main"}
)

func subjectEntries() []SubjectEntry {
	return []SubjectEntry{
		{
			Pattern: "kollect.snapshots.<namespace>.<inventory>", Example: SnapshotSubject(exampleInventory),
			Purpose: "Every snapshot of one inventory: on a material change, on each binding's periodic re-export, " +
				"on deletion. Header Nats-Msg-Id is `<namespace>.<inventory>.<revision>.<reason>.<createdAt ns>` (SnapshotMsgID). " +
				"Each event and its envelope carry `previousChecksum`, the checksum of the revision published before (empty for the first), " +
				"read back from the last event after a restart. Each event also carries `attributeTypes`, the declared attribute " +
				"types merged over the Targets whose rows the inventory selects (sent beside each row in its RowEntry).",
			Message: "SnapshotEvent", Stream: StreamSnapshots,
			Publishers: services(busv1.ServiceAggregator), Subscribers: withExporters(busv1.ServiceAggregator),
		},
		{
			Pattern: "kollect.status.<service>.<kind>.<namespace>.<name>",
			Example: StatusSubject(StatusAddress{Service: busv1.ServiceCollector, Kind: busv1.KindClusterTarget, Name: "nodes"}),
			Purpose: "A service's latest report on one object: target counts and errors, inventory revision, sink connection.",
			Message: "StatusReport", Stream: StreamStatus,
			Publishers:  withExporters(busv1.ServiceCollector, busv1.ServiceAggregator),
			Subscribers: services(busv1.ServiceControl),
		},
		{
			Pattern: "kollect.status.<service>.<kind>.<namespace>.<name>.<family>.<sinkNamespace>.<sink>",
			Example: StatusSubject(StatusAddress{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory,
				Namespace: exampleInventory.Namespace, Name: exampleInventory.Name, Sink: &exampleSink}),
			Purpose: "An exporter's latest result for one binding of an inventory.",
			Message: "StatusReport", Stream: StreamStatus,
			Publishers: exporters, Subscribers: services(busv1.ServiceControl),
		},
		{
			Pattern: "kollect.conntest.<family>", Example: ConnTestSubject(busv1.FamilyEvent),
			Purpose: "Connection-test requests from control; one replica of the family's exporter (queue group " +
				"<family>-exporter) replies with a ConnectionTestReply. Core NATS request-reply, not stored.",
			Message:    "ConnectionTestRequest",
			Publishers: services(busv1.ServiceControl), Subscribers: exporters,
		},
		{
			Pattern: "kollect.deadletter.<family>.<namespace>.<inventory>",
			Example: DeadLetterSubject(busv1.FamilyDatabase, exampleCluster),
			Purpose: "A snapshot event the family's exporter terminated after a permanent failure. The query " +
				"service reads them (read-only) to serve query.kollect.dev's deadletters to whoever may get the inventory.",
			Message: "DeadLetter", Stream: StreamDeadLetters, Publishers: exporters,
			Subscribers: services(busv1.ServiceQuery),
		},
	}
}

func keyEntries() []KeyEntry {
	var out []KeyEntry
	for _, k := range configKinds {
		e := KeyEntry{
			Bucket: BucketConfig, Pattern: string(k) + ".<namespace>.<name>",
			Example: ConfigKey(ConfigRef{Kind: k, Namespace: "team-a", Name: "example"}),
			Writer:  busv1.ServiceControl,
		}
		switch k {
		case busv1.KindTarget, busv1.KindClusterTarget:
			e.Message, e.Readers = "TargetConfig", services(busv1.ServiceCollector)
		case busv1.KindInventory, busv1.KindClusterInventory:
			e.Message, e.Readers = "InventoryConfig", services(busv1.ServiceAggregator)
		case busv1.KindReplay:
			e.Message, e.Readers = "ReplayRequest", services(busv1.ServiceAggregator)
		default:
			e.Message, e.Readers = "SinkConfig", exporters
		}
		if k == busv1.KindClusterTarget || k == busv1.KindClusterInventory {
			e.Example = ConfigKey(ConfigRef{Kind: k, Name: "example"})
		}
		out = append(out, e)
	}
	return append(out,
		KeyEntry{
			Bucket: BucketConfig, Pattern: ConfigCompleteKey, Example: ConfigCompleteKey,
			Message: "Marker (the time control finished a full pass over every object, RFC 3339)",
			Writer:  busv1.ServiceControl, Readers: services(busv1.ServiceCollector, busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: BucketRows, Pattern: RowsSyncedKey + ".<shards>.<shard>", Example: RowsSyncedShardKey(8, 3),
			Message: "Marker (the time the collector replica holding the shard finished its initial sync, RFC 3339)",
			Writer:  busv1.ServiceCollector, Readers: services(busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: BucketRows, Pattern: "<targetNamespace>.<target>.<uid>",
			Example: RowKey(busv1.RowKey{TargetNamespace: "team-a", TargetName: "pods", UID: "5b0c1f6e-1d2a-4c39-9a51-0f3c2a9d1e77"}),
			Message: "RowEntry", Writer: busv1.ServiceCollector, Readers: services(busv1.ServiceCollector, busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: BucketExportState, Pattern: "<namespace>.<inventory>.<family>.<sinkNamespace>.<sink>",
			Example: ExportStateKey(exampleInventory, exampleSink),
			Message: "ExportState", Writer: "<family>-exporter", Readers: withExporters(busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: BucketLeases, Pattern: "<service>", Example: LeaseKey(busv1.ServiceAggregator),
			Message: "(the lease holder's own format)", Writer: busv1.ServiceAggregator,
			Readers: services(busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: BucketLeases, Pattern: "collector.members.<identity>",
			Example: ShardRole(busv1.ServiceCollector) + ".members.kollect-collector-5d8f7c9b4-x2k8q",
			Message: "(pkg/shard: the replica's shard count and expiry)", Writer: busv1.ServiceCollector,
			Readers: services(busv1.ServiceCollector),
		},
		KeyEntry{
			Bucket: BucketLeases, Pattern: "collector.shards.<shards>.<shard>",
			Example: ShardRole(busv1.ServiceCollector) + ".shards.8.3",
			Message: "(pkg/shard: the holder of the shard's Targets, its shard count and expiry)", Writer: busv1.ServiceCollector,
			Readers: services(busv1.ServiceCollector),
		},
		KeyEntry{
			Bucket: BucketLeases, Pattern: "aggregator.members.<identity>", Example: ShardRole(busv1.ServiceAggregator) + ".members.kollect-aggregator-7d9f-x2",
			Message: "(pkg/shard: the replica's shard count and expiry)", Writer: busv1.ServiceAggregator,
			Readers: services(busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: BucketLeases, Pattern: "aggregator.shards.<shards>.<shard>", Example: ShardRole(busv1.ServiceAggregator) + ".shards.8.3",
			Message: "(pkg/shard: the shard's holder and expiry)", Writer: busv1.ServiceAggregator,
			Readers: services(busv1.ServiceAggregator),
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "chunk.<owner>.<sha256 hex>",
			Example: OwnerOf(exampleInventory).Names(ChunkObjectName)(exampleDigest),
			Message: "Chunk of the manifests of the same owner: <owner> is the inventories' namespace, or =cluster.<clusterInventory>",
			Writer:  busv1.ServiceAggregator, Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "manifest.<owner>.<sha256 hex>",
			Example: OwnerOf(exampleInventory).Names(ManifestObjectName)(exampleDigest),
			Message: "Manifest (likewise delta.<owner>.<sha256 hex>, envelope.<owner>.<sha256 hex>)", Writer: busv1.ServiceAggregator,
			Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "chunk.<sha256 hex> (before shards)", Example: ChunkObjectName(exampleDigest),
			Message: "Chunk (rows' canonical JSON joined by \",\")", Writer: busv1.ServiceAggregator, Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "manifest.<sha256 hex> (before shards)", Example: ManifestObjectName(exampleDigest),
			Message: "Manifest", Writer: busv1.ServiceAggregator, Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "page.<owner>.<sha256 hex>", Example: OwnerOf(exampleInventory).Names(PageObjectName)(exampleDigest),
			Message: "ManifestPage (a run of chunks of a paged Manifest, of the same owner)", Writer: busv1.ServiceAggregator, Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "delta.<sha256 hex> (before shards)", Example: DeltaObjectName(exampleDigest),
			Message: "Delta", Writer: busv1.ServiceAggregator, Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "envelope.<sha256 hex> (before shards)", Example: EnvelopeBlobObjectName(exampleDigest),
			Message: "Envelope (JSON): the body periodic re-exports of an inline revision reference", Writer: busv1.ServiceAggregator,
			Readers: exporters,
		},
		KeyEntry{
			Bucket: ObjectStoreEnvelopes, Pattern: "<namespace>.<inventory>.<revision> (earlier releases)",
			Example: EnvelopeObjectName(exampleInventory, 42),
			Message: "Envelope (JSON)", Writer: busv1.ServiceAggregator, Readers: exporters,
		},
	)
}

// exampleDigest is a sha256 hex for the examples of content-addressed names.
const exampleDigest = "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08"
