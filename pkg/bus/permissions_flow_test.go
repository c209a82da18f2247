package bus

import (
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Shared names of the permission scenario; each step builds on the previous.
var (
	permInv    = busv1.NamespacedName{Namespace: "team-a", Name: "apps"}
	permTarget = ConfigRef{Kind: busv1.KindTarget, Namespace: "team-a", Name: "pods"}
	permRow    = busv1.RowKey{TargetNamespace: "team-a", TargetName: "pods", UID: "u1"}
)

// TestPermissionsAllowEachServiceItsWorkAndNoMore runs every service's bus
// operations, in pipeline order, as a NATS user holding only the permissions
// docs/bus.md lists.
func TestPermissionsAllowEachServiceItsWorkAndNoMore(t *testing.T) {
	as := securedNATS(t)
	steps := []struct {
		name string
		run  func(*testing.T, func(busv1.Service) serviceConn)
	}{
		{"control writes config and may not write rows", controlWritesConfig},
		{"the collector watches config, writes rows and its status, and may not publish snapshots", collectorWritesRows},
		{"the aggregator reads rows, publishes snapshots and stores envelopes", aggregatorPublishesSnapshots},
		{"an exporter consumes snapshots, reads envelopes and writes its own state", exporterConsumesSnapshots},
		{"control asks an exporter for a connection test and reads status", controlTestsConnections},
		{"the query service reads dead letters and may not write them", queryReadsDeadLetters},
	}
	for _, s := range steps {
		t.Run(s.name, func(t *testing.T) { s.run(t, as) })
	}
}

func controlWritesConfig(t *testing.T, as func(busv1.Service) serviceConn) {
	ctx := testContext(t)
	c := as(busv1.ServiceControl)
	kv := must[jetstream.KeyValue](t, "bind config")(c.js.KeyValue(ctx, BucketConfig))
	must[uint64](t, "put config")(kv.Put(ctx, ConfigKey(permTarget), []byte(`{}`)))
	c.noViolation(t)
	c.denied(t, "$KV."+BucketRows+"."+RowKey(permRow))
}

func collectorWritesRows(t *testing.T, as func(busv1.Service) serviceConn) {
	ctx := testContext(t)
	c := as(busv1.ServiceCollector)
	watchOnce(ctx, t, c.js, BucketConfig, ConfigKeyFilter(busv1.KindTarget))
	kv := must[jetstream.KeyValue](t, "bind rows")(c.js.KeyValue(ctx, BucketRows))
	must[uint64](t, "put row")(kv.Put(ctx, RowKey(permRow), []byte(`{}`)))
	must[jetstream.KeyValueEntry](t, "get row")(kv.Get(ctx, RowKey(permRow)))
	watchedKeys(ctx, t, kv, RowKeyFilter("team-a", "pods"))
	report := busv1.StatusReport{Service: busv1.ServiceCollector, Kind: busv1.KindTarget, Namespace: "team-a", Name: "pods"}
	must[*jetstream.PubAck](t, "publish status")(c.js.Publish(ctx, StatusSubjectFor(report), []byte(`{}`)))
	// Its shards (pkg/shard): a member key and a shard lease, watched.
	leases := must[jetstream.KeyValue](t, "bind leases")(c.js.KeyValue(ctx, BucketLeases))
	role := ShardRole(busv1.ServiceCollector)
	must[uint64](t, "put member")(leases.Put(ctx, role+".members.collector-0", []byte(`{}`)))
	rev := must[uint64](t, "take shard")(leases.Create(ctx, role+".shards.8.3", []byte(`{}`)))
	must[uint64](t, "renew shard")(leases.Update(ctx, role+".shards.8.3", []byte(`{}`), rev))
	watchedKeys(ctx, t, leases, ShardKeysFilter(busv1.ServiceCollector))
	must[uint64](t, "put the shard's marker")(kv.Put(ctx, RowsSyncedShardKey(8, 3), []byte(`{}`)))
	c.noViolation(t)
	c.denied(t, SnapshotSubject(permInv))
	c.denied(t, "$KV."+BucketConfig+"."+ConfigKey(permTarget))
	c.denied(t, "$KV."+BucketLeases+"."+LeaseKey(busv1.ServiceAggregator))
}

func aggregatorPublishesSnapshots(t *testing.T, as func(busv1.Service) serviceConn) {
	ctx := testContext(t)
	c := as(busv1.ServiceAggregator)
	watchOnce(ctx, t, c.js, BucketConfig, ConfigKeyFilter(busv1.KindInventory))
	watchOnce(ctx, t, c.js, BucketRows, RowNamespaceFilter("team-a"))
	watchOnce(ctx, t, c.js, BucketExportState, ">")
	// The revision floor: the export state of one inventory, listed by key.
	state := must[jetstream.KeyValue](t, "bind export state")(c.js.KeyValue(ctx, BucketExportState))
	lister := must[jetstream.KeyLister](t, "list export state")(state.ListKeysFiltered(ctx, ExportStateFilter(permInv)))
	for range lister.Keys() {
	}
	// A backfill's hold on a binding, of any family.
	for _, s := range []busv1.SinkRef{gitMain, warehouse} {
		must[uint64](t, "hold a binding")(state.Put(ctx, ExportStateKey(permInv, s), []byte(`{}`)))
	}
	ev := busv1.SnapshotEvent{Inventory: permInv, Revision: 1, Reason: busv1.ReasonChange, CreatedAt: time.Now()}
	must[*jetstream.PubAck](t, "publish snapshot")(c.js.Publish(ctx, SnapshotSubject(permInv), []byte(`{}`),
		jetstream.WithMsgID(SnapshotMsgID(ev))))
	s := must[jetstream.Stream](t, "bind snapshots")(c.js.Stream(ctx, StreamSnapshots))
	must[*jetstream.RawStreamMsg](t, "read last snapshot")(s.GetLastMsgForSubject(ctx, SnapshotSubject(permInv)))
	obs := must[jetstream.ObjectStore](t, "bind envelopes")(c.js.ObjectStore(ctx, ObjectStoreEnvelopes))
	leases := must[jetstream.KeyValue](t, "bind leases")(c.js.KeyValue(ctx, BucketLeases))
	rev := must[uint64](t, "take lease")(leases.Create(ctx, LeaseKey(busv1.ServiceAggregator), []byte(`{}`)))
	must[uint64](t, "renew lease")(leases.Update(ctx, LeaseKey(busv1.ServiceAggregator), []byte(`{}`), rev))
	// Its shards (pkg/shard): a member key and a shard's lease.
	for _, k := range []string{"aggregator.members.agg-0", "aggregator.shards.8.3"} {
		must[uint64](t, "put "+k)(leases.Put(ctx, k, []byte(`{}`)))
		if err := leases.Delete(ctx, k); err != nil {
			t.Fatalf("delete %s: %v", k, err)
		}
	}
	must[*jetstream.ObjectInfo](t, "put envelope")(obs.PutBytes(ctx, EnvelopeObjectName(permInv, 1), []byte(`{"items":[]}`)))
	// Garbage collection: read the whole history, list and delete objects,
	// trim one inventory's history.
	oc := must[jetstream.Consumer](t, "read snapshot history")(c.js.OrderedConsumer(ctx, StreamSnapshots,
		jetstream.OrderedConsumerConfig{FilterSubjects: []string{SnapshotSubjects}, DeliverPolicy: jetstream.DeliverAllPolicy}))
	must[jetstream.Msg](t, "read a snapshot event")(oc.Next(jetstream.FetchContext(ctx)))
	must[*jetstream.ObjectInfo](t, "put chunk")(obs.PutBytes(ctx, ChunkObjectName(exampleDigest), []byte(`{}`)))
	must[[]*jetstream.ObjectInfo](t, "list objects")(obs.List(ctx))
	if err := obs.Delete(ctx, ChunkObjectName(exampleDigest)); err != nil {
		t.Fatalf("delete an object: %v", err)
	}
	if err := s.Purge(ctx, jetstream.WithPurgeSubject(SnapshotSubject(permInv)), jetstream.WithPurgeSequence(1)); err != nil {
		t.Fatalf("trim a history: %v", err)
	}
	c.noViolation(t)
	c.denied(t, "kollect.status.collector.KollectTarget.team-a.pods")
	c.denied(t, "$KV."+BucketLeases+"."+LeaseKey(busv1.ServiceControl))
	c.denied(t, "$KV."+BucketLeases+".collector.shards.8.3")
}

func exporterConsumesSnapshots(t *testing.T, as func(busv1.Service) serviceConn) {
	ctx := testContext(t)
	c := as(busv1.ServiceSnapshotExporter)
	watchOnce(ctx, t, c.js, BucketConfig, ConfigKeyFilter(busv1.KindSnapshotSink))
	cons := must[jetstream.Consumer](t, "bind consumer")(c.js.Consumer(ctx, StreamSnapshots, ExporterConsumer(busv1.FamilySnapshot)))
	batch := must[jetstream.MessageBatch](t, "fetch")(cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second)))
	got := 0
	for m := range batch.Messages() {
		got++
		if err := m.DoubleAck(ctx); err != nil {
			t.Errorf("ack: %v", err)
		}
	}
	if got != 1 {
		t.Errorf("fetched %d snapshot events, want 1 (batch error %v)", got, batch.Error())
	}
	obs := must[jetstream.ObjectStore](t, "bind envelopes")(c.js.ObjectStore(ctx, ObjectStoreEnvelopes))
	must[[]byte](t, "get envelope")(obs.GetBytes(ctx, EnvelopeObjectName(permInv, 1)))
	state := must[jetstream.KeyValue](t, "bind export state")(c.js.KeyValue(ctx, BucketExportState))
	must[uint64](t, "put export state")(state.Put(ctx, ExportStateKey(permInv, gitMain), []byte(`{}`)))
	must[*jetstream.PubAck](t, "publish dead letter")(c.js.Publish(ctx, DeadLetterSubject(busv1.FamilySnapshot, permInv), []byte(`{}`)))
	c.noViolation(t)
	c.denied(t, "$KV."+BucketExportState+"."+ExportStateKey(permInv, warehouse))
	c.denied(t, DeadLetterSubject(busv1.FamilyDatabase, permInv))
}

func controlTestsConnections(t *testing.T, as func(busv1.Service) serviceConn) {
	ctx := testContext(t)
	exp := as(busv1.ServiceEventExporter)
	sub, err := exp.nc.QueueSubscribe(ConnTestSubject(busv1.FamilyEvent), ConnTestQueue(busv1.FamilyEvent),
		func(m *nats.Msg) { _ = m.Respond([]byte(`{"ok":true}`)) })
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = sub.Unsubscribe() }()
	if err := exp.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	c := as(busv1.ServiceControl)
	reply, err := c.nc.RequestWithContext(ctx, ConnTestSubject(busv1.FamilyEvent), []byte(`{}`))
	if err != nil || string(reply.Data) != `{"ok":true}` {
		t.Errorf("connection test request = %v, %v", reply, err)
	}
	cons := must[jetstream.Consumer](t, "status consumer")(c.js.OrderedConsumer(ctx, StreamStatus, jetstream.OrderedConsumerConfig{}))
	batch := must[jetstream.MessageBatch](t, "fetch status")(cons.Fetch(1, jetstream.FetchMaxWait(5*time.Second)))
	for range batch.Messages() {
	}
	if batch.Error() != nil {
		t.Errorf("fetch status: %v", batch.Error())
	}
	c.noViolation(t)
	exp.noViolation(t)
}

func queryReadsDeadLetters(t *testing.T, as func(busv1.Service) serviceConn) {
	ctx := testContext(t)
	c := as(busv1.ServiceQuery)
	dead := must[jetstream.Stream](t, "bind dead letters")(c.js.Stream(ctx, StreamDeadLetters))
	m := must[*jetstream.RawStreamMsg](t, "read a namespace's next dead letter")(dead.GetMsg(ctx, 1,
		jetstream.WithGetMsgSubject(DeadLetterSubjectFilter("*", EncodeToken(permInv.Namespace), "*"))))
	if m.Subject != DeadLetterSubject(busv1.FamilySnapshot, permInv) {
		t.Errorf("read %s, want the exporter's dead letter", m.Subject)
	}
	c.noViolation(t)
	c.denied(t, DeadLetterSubject(busv1.FamilySnapshot, permInv))
	c.denied(t, SnapshotSubject(permInv))
}
