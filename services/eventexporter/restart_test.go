package eventexporter_test

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/history"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/eventexporter"
)

var inv = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

// kafkaSystem is a provisioned bus and a kfake cluster, with inv bound to
// one Kafka sink in perRow mode.
type kafkaSystem struct {
	t      *testing.T
	nats   *testenv.NATS
	broker string
	topic  string
}

func newKafkaSystem(t *testing.T) *kafkaSystem {
	n := testenv.StartNATS(t)
	if err := bus.Provision(context.Background(), n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s := &kafkaSystem{t: t, nats: n, broker: c.ListenAddrs()[0], topic: "inventory"}
	spec, _ := json.Marshal(map[string]any{"type": "kafka", "cluster": "east",
		"kafka": map[string]any{"brokers": []string{s.broker}, "topic": s.topic, "mode": "perRow"}})
	s.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindEventSink, Namespace: "team-a", Name: "events"}),
		busv1.SinkConfig{Family: busv1.FamilyEvent, Type: "kafka", Namespace: "team-a", Name: "events", Generation: 1,
			Cluster: "east", Spec: spec})
	s.put(bus.ConfigKey(bus.ConfigRef{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name}),
		busv1.InventoryConfig{Kind: busv1.KindInventory, Namespace: inv.Namespace, Name: inv.Name, Generation: 1,
			Bindings: []busv1.Binding{binding()}})
	return s
}

func binding() busv1.Binding {
	return busv1.Binding{SinkRef: busv1.SinkRef{Family: busv1.FamilyEvent, Namespace: "team-a", Name: "events"}, SinkGeneration: 1}
}

func (s *kafkaSystem) put(key string, v any) {
	s.t.Helper()
	kv, err := s.nats.JS.KeyValue(context.Background(), bus.BucketConfig)
	if err != nil {
		s.t.Fatal(err)
	}
	b, _ := json.Marshal(v)
	if _, err := kv.Put(context.Background(), key, b); err != nil {
		s.t.Fatal(err)
	}
}

// start runs one event exporter replica with the service's own backends
// (a new Kafka sink, with no memory of earlier writes) and returns the
// function that stops it.
func (s *kafkaSystem) start() func() {
	c := eventexporter.DefaultConfig()
	c.AllowInClusterSinks = true
	rc := c.Runtime
	rc.Credentials, rc.RetryInitial, rc.RetryMax, rc.BreakerCooldown = backend.MapCredentials{}, 20*time.Millisecond, 200*time.Millisecond, 200*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Add(1)
	go func() {
		defer wg.Done()
		if err := exporter.Run(ctx, s.nats.JS, rc, eventexporter.Backends(c)...); err != nil {
			s.t.Errorf("exporter: %v", err)
		}
	}()
	var once sync.Once
	stop := func() { once.Do(func() { cancel(); wg.Wait() }) }
	s.t.Cleanup(stop)
	return stop
}

// publish publishes revision rev of inv holding a row per uid, without a
// delta; a ReasonDeleted event has deletion policy Delete.
func (s *kafkaSystem) publish(rev uint64, reason busv1.SnapshotReason, uids ...string) {
	s.t.Helper()
	env, err := snapshot.Envelope(inv, rev, 1, rows(uids...))
	if err != nil {
		s.t.Fatal(err)
	}
	ev := busv1.SnapshotEvent{Inventory: inv, Revision: rev, Generation: 1, Checksum: env.Checksum, ItemCount: env.ItemCount,
		CreatedAt: time.Now(), Reason: reason, Envelope: &env, Bindings: []busv1.Binding{binding()}}
	if reason == busv1.ReasonDeleted {
		ev.DeletionPolicy = busv1.DeletionDelete
	}
	b, _ := json.Marshal(ev)
	if _, err := s.nats.JS.Publish(context.Background(), bus.SnapshotSubject(inv), b); err != nil {
		s.t.Fatal(err)
	}
}

func rows(uids ...string) []busv1.Row {
	out := make([]busv1.Row, len(uids))
	for i, u := range uids {
		out[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: u, UID: u,
			Version: "v1", Kind: "Pod", Attributes: map[string]any{}}
	}
	return out
}

// compacted reads the topic from the start and returns the live row uids
// of inv (the last value per row key, tombstones delete) and the revision
// of its last inventory record.
func (s *kafkaSystem) compacted() ([]string, uint64) {
	s.t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(s.broker), kgo.ConsumeTopics(s.topic), kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		s.t.Fatal(err)
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, s.topic)
	if err != nil {
		s.t.Fatal(err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	invKey := "east/" + inv.Namespace + "/" + inv.Name
	live, rev := map[string]bool{}, uint64(0)
	for len(want) > 0 {
		f := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			s.t.Fatal(err)
		}
		f.EachRecord(func(r *kgo.Record) {
			if r.Offset+1 >= want[r.Partition] {
				delete(want, r.Partition)
			}
			switch key := string(r.Key); {
			case key == invKey:
				var v struct{ Revision uint64 }
				_ = json.Unmarshal(r.Value, &v)
				rev = v.Revision
			case strings.HasPrefix(key, invKey+"/"):
				live[key[strings.LastIndex(key, "/")+1:]] = r.Value != nil
			}
		})
	}
	var uids []string
	for u, ok := range live {
		if ok {
			uids = append(uids, u)
		}
	}
	slices.Sort(uids)
	return uids, rev
}

// waitCompacted waits until the topic's view of inv is revision rev with
// exactly uids.
func (s *kafkaSystem) waitCompacted(rev uint64, uids ...string) {
	s.t.Helper()
	var got []string
	var gotRev uint64
	// Past the deadline the checks below fail with the revision seen.
	_ = testenv.Poll(s.t.Context(), 30*time.Second, func() error {
		if got, gotRev = s.compacted(); gotRev != rev {
			return errors.New("another revision")
		}
		return nil
	})
	if gotRev != rev {
		s.t.Fatalf("the topic's inventory record is at revision %d, want %d", gotRev, rev)
	}
	if d := cmp.Diff(uids, got); d != "" {
		s.t.Fatalf("live rows of revision %d in the compacted topic (-want +got):\n%s", rev, d)
	}
}

// A restarted exporter has no memory of the rows it sent. Revisions that
// reach it without a delta from its export state (published while it was
// down, not chained) still tombstone the rows deleted meanwhile: the
// runtime rebuilds the delta from the snapshot history.
func TestKafkaPerRowTombstonesRowsDeletedWhileTheExporterWasDown(t *testing.T) {
	s := newKafkaSystem(t)
	stop := s.start()
	s.publish(1, busv1.ReasonChange, "a", "b", "c", "d")
	s.waitCompacted(1, "a", "b", "c", "d")
	stop() // the kill: the next sink starts with an empty memory

	// Revision 2 deletes b, revision 3 deletes d and adds e; neither
	// carries a delta (as after an aggregator restart).
	s.publish(2, busv1.ReasonChange, "a", "c", "d")
	s.publish(3, busv1.ReasonChange, "a", "c", "e")
	stop = s.start()
	s.waitCompacted(3, "a", "c", "e")
	stop()

	// The inventory deleted while the exporter is down: every row is
	// tombstoned by the next one.
	s.publish(4, busv1.ReasonDeleted)
	s.start()
	s.waitCompacted(4)
}

// When the history no longer holds the export state's revision, the
// restarted sink's full write still tombstones the rows deleted meanwhile:
// it reads the inventory's live rows back from the topic.
func TestKafkaPerRowTombstonesRowsDeletedAfterTheirHistoryExpired(t *testing.T) {
	s := newKafkaSystem(t)
	stop := s.start()
	s.publish(1, busv1.ReasonChange, "a", "b", "c")
	s.waitCompacted(1, "a", "b", "c")
	stop()
	s.expire(1)
	s.publish(2, busv1.ReasonChange, "a", "d")
	s.start()
	s.waitCompacted(2, "a", "d")
}

// expire deletes revision rev's event from the snapshot history, as the
// stream's limits do.
func (s *kafkaSystem) expire(rev uint64) {
	s.t.Helper()
	ctx := context.Background()
	evs, err := history.Events(ctx, s.nats.JS, inv)
	if err != nil {
		s.t.Fatal(err)
	}
	st, err := s.nats.JS.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		s.t.Fatal(err)
	}
	for _, e := range evs {
		if e.Event.Revision == rev {
			if err := st.DeleteMsg(ctx, e.Sequence); err != nil {
				s.t.Fatal(err)
			}
		}
	}
}
