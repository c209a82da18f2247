package bus

import (
	"bytes"
	"context"
	"encoding/json"
	"slices"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// The names on a real server: filters select what the design says they do.

func TestRowKeysOnTheServer(t *testing.T) {
	ctx, js := provisioned(t, DefaultOptions())
	kv, err := js.KeyValue(ctx, BucketRows)
	if err != nil {
		t.Fatal(err)
	}
	rows := []busv1.RowKey{
		{TargetNamespace: "team-a", TargetName: "pods", UID: "u1"},
		{TargetNamespace: "team-a", TargetName: "pods", UID: "u2"},
		{TargetNamespace: "team-a", TargetName: "svc.v2", UID: "u3"},
		{TargetNamespace: "team-ab", TargetName: "pods", UID: "u4"},
		{TargetName: "pods", UID: "u5", ClusterTarget: true},
	}
	for _, r := range rows {
		if _, err := kv.Put(ctx, RowKey(r), []byte(`{}`)); err != nil {
			t.Fatalf("put %s: %v", RowKey(r), err)
		}
	}
	tests := []struct {
		name   string
		filter string
		want   []string
	}{
		{"a namespace filter selects that namespace's targets only", RowNamespaceFilter("team-a"),
			[]string{"team-a.pods.u1", "team-a.pods.u2", "team-a.svc_v2.u3"}},
		{"a target filter selects that target only", RowKeyFilter("team-a", "pods"),
			[]string{"team-a.pods.u1", "team-a.pods.u2"}},
		{"the empty namespace selects cluster targets only", RowNamespaceFilter(""), []string{"=cluster.pods.u5"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, watchedKeys(ctx, t, kv, tt.filter)); diff != "" {
				t.Errorf("keys under %s (-want +got):\n%s", tt.filter, diff)
			}
		})
	}
	t.Run("a deleted row is a tombstone that watchers see", func(t *testing.T) {
		w, err := kv.Watch(ctx, RowKeyFilter("team-a", "pods"), jetstream.UpdatesOnly())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = w.Stop() }()
		if err := kv.Delete(ctx, RowKey(rows[0])); err != nil {
			t.Fatal(err)
		}
		e := nextEntry(t, w)
		if e.Key() != RowKey(rows[0]) || e.Operation() != jetstream.KeyValueDelete {
			t.Errorf("watcher saw %s %v, want a delete of %s", e.Key(), e.Operation(), RowKey(rows[0]))
		}
	})
}

func TestConfigKeysOnTheServer(t *testing.T) {
	ctx, js := provisioned(t, DefaultOptions())
	kv, err := js.KeyValue(ctx, BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	refs := []ConfigRef{
		{Kind: busv1.KindTarget, Namespace: "team-a", Name: "pods"},
		{Kind: busv1.KindClusterTarget, Name: "nodes"},
		{Kind: busv1.KindInventory, Namespace: "team-a", Name: "apps"},
	}
	for _, r := range refs {
		if _, err := kv.Put(ctx, ConfigKey(r), []byte(`{}`)); err != nil {
			t.Fatalf("put %s: %v", ConfigKey(r), err)
		}
	}
	t.Run("a kind filter selects that kind only", func(t *testing.T) {
		got := watchedKeys(ctx, t, kv, ConfigKeyFilter(busv1.KindTarget))
		if diff := cmp.Diff([]string{"KollectTarget.team-a.pods"}, got); diff != "" {
			t.Errorf("Target keys (-want +got):\n%s", diff)
		}
	})
}

func TestSnapshotSubjectsOnTheServer(t *testing.T) {
	ctx, js := provisioned(t, DefaultOptions())
	invs := []busv1.NamespacedName{
		{Namespace: "team-a", Name: "x"}, {Namespace: "team-a", Name: "y.z"},
		{Namespace: "team-ab", Name: "x"}, {Name: "fleet"},
	}
	for _, inv := range invs {
		if _, err := js.Publish(ctx, SnapshotSubject(inv), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("a one-namespace wildcard selects exactly that namespace's inventories", func(t *testing.T) {
		filter := join([]string{Root, kindSnapshots}, "team-a") + ".*"
		c, err := js.OrderedConsumer(ctx, StreamSnapshots, jetstream.OrderedConsumerConfig{FilterSubjects: []string{filter}})
		if err != nil {
			t.Fatal(err)
		}
		got := []busv1.NamespacedName{}
		batch, err := c.Fetch(10, jetstream.FetchMaxWait(time.Second))
		if err != nil {
			t.Fatal(err)
		}
		for m := range batch.Messages() {
			inv, err := ParseSnapshotSubject(m.Subject())
			if err != nil {
				t.Fatal(err)
			}
			got = append(got, inv)
		}
		if diff := cmp.Diff(invs[:2], got); diff != "" {
			t.Errorf("inventories under %s (-want +got):\n%s", filter, diff)
		}
	})
}

func TestSnapshotMsgIDOnTheServer(t *testing.T) {
	ctx, js := provisioned(t, DefaultOptions())
	inv := busv1.NamespacedName{Namespace: "team-a", Name: "apps"}
	created := time.Date(2026, 3, 14, 15, 9, 26, 0, time.UTC)
	change := busv1.SnapshotEvent{Inventory: inv, Revision: 7, Reason: busv1.ReasonChange, CreatedAt: created}
	periodic := change
	periodic.Reason, periodic.CreatedAt = busv1.ReasonPeriodic, created.Add(30*time.Second)
	publish := func(e busv1.SnapshotEvent) *jetstream.PubAck {
		t.Helper()
		ack, err := js.Publish(ctx, SnapshotSubject(inv), []byte(`{}`), jetstream.WithMsgID(SnapshotMsgID(e)))
		if err != nil {
			t.Fatal(err)
		}
		return ack
	}
	publish(change)
	t.Run("a retried publish of the same event is stored once", func(t *testing.T) {
		if ack := publish(change); !ack.Duplicate {
			t.Errorf("second publish of %s was not a duplicate", SnapshotMsgID(change))
		}
	})
	t.Run("a periodic re-export of the same revision is a new event", func(t *testing.T) {
		if ack := publish(periodic); ack.Duplicate {
			t.Errorf("periodic event %s was dropped as a duplicate", SnapshotMsgID(periodic))
		}
		if n := subjectCount(ctx, t, js, StreamSnapshots, SnapshotSubject(inv)); n != 2 {
			t.Errorf("events stored = %d, want 2", n)
		}
	})
}

func TestLargeEnvelopesGoToTheObjectStore(t *testing.T) {
	o := DefaultOptions()
	o.MaxMessageBytes = 64 << 10
	ctx, js := provisioned(t, o)
	inv := busv1.NamespacedName{Name: "fleet"}
	env := busv1.Envelope{SchemaVersion: busv1.SchemaVersion, Inventory: inv, Revision: 3}
	for i := range 2000 {
		env.Items = append(env.Items, busv1.Row{TargetName: "nodes", Name: "node", UID: "uid-" + itoa(i), Version: "v1", Kind: "Node"})
	}
	body, err := json.Marshal(env)
	if err != nil {
		t.Fatal(err)
	}
	t.Run("the snapshot stream refuses an envelope over the message limit", func(t *testing.T) {
		if _, err := js.Publish(ctx, SnapshotSubject(inv), body); err == nil {
			t.Errorf("publishing %d bytes over a %d byte limit succeeded", len(body), o.MaxMessageBytes)
		}
	})
	t.Run("the object store holds it under its envelope name", func(t *testing.T) {
		obs, err := js.ObjectStore(ctx, ObjectStoreEnvelopes)
		if err != nil {
			t.Fatal(err)
		}
		info, err := obs.PutBytes(ctx, EnvelopeObjectName(inv, env.Revision), body)
		if err != nil {
			t.Fatal(err)
		}
		ref := busv1.ObjectRef{Bucket: info.Bucket, Name: info.Name, Size: int64(info.Size), Digest: info.Digest}
		got, err := obs.GetBytes(ctx, ref.Name)
		if err != nil || !bytes.Equal(got, body) || ref.Size != int64(len(body)) {
			t.Errorf("GetBytes(%s) = %d bytes, %v; want %d", ref.Name, len(got), err, len(body))
		}
	})
}

func TestStatusStreamKeepsTheLatestReportPerAddress(t *testing.T) {
	ctx, js := provisioned(t, DefaultOptions())
	inv := StatusAddress{Service: busv1.ServiceDatabaseExporter, Kind: busv1.KindInventory, Namespace: "team-a", Name: "apps"}
	other := busv1.SinkRef{Family: busv1.FamilyDatabase, Namespace: "team-a", Name: "mongo"}
	withSink := func(s busv1.SinkRef) StatusAddress { a := inv; a.Sink = &s; return a }
	for _, p := range []struct{ addr StatusAddress }{{inv}, {inv}, {withSink(warehouse)}, {withSink(other)}, {withSink(other)}} {
		if _, err := js.Publish(ctx, StatusSubject(p.addr), []byte(`{}`)); err != nil {
			t.Fatal(err)
		}
	}
	t.Run("one report per object and per binding is kept", func(t *testing.T) {
		s, err := js.Stream(ctx, StreamStatus)
		if err != nil {
			t.Fatal(err)
		}
		info, err := s.Info(ctx)
		if err != nil || info.State.Msgs != 3 {
			t.Errorf("status messages = %v (err %v), want 3", info.State.Msgs, err)
		}
	})
}

// watchedKeys returns the keys a watch on filter delivers initially, sorted.
func watchedKeys(ctx context.Context, t *testing.T, kv jetstream.KeyValue, filter string) []string {
	t.Helper()
	w, err := kv.Watch(ctx, filter)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = w.Stop() }()
	keys := []string{}
	for {
		e := nextEntry(t, w)
		if e == nil {
			slices.Sort(keys)
			return keys
		}
		keys = append(keys, e.Key())
	}
}

// nextEntry returns the watcher's next update (nil marks the end of the
// initial values), failing the test after a deadline.
func nextEntry(t *testing.T, w jetstream.KeyWatcher) jetstream.KeyValueEntry {
	t.Helper()
	select {
	case e := <-w.Updates():
		return e
	case <-time.After(10 * time.Second):
		t.Fatal("timed out waiting for a KV watch update")
		return nil
	}
}
