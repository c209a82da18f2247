package kafka_test

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/eventexporter/internal/kafka"
	"kollect.dev/kollect/services/eventexporter/internal/parts/partstest"
)

// startKafka starts an in-process kfake cluster with opts (one broker,
// topic auto-creation off unless asked) and returns its bootstrap address.
func startKafka(t testing.TB, opts ...kfake.Opt) string {
	t.Helper()
	c, err := kfake.NewCluster(append([]kfake.Opt{kfake.NumBrokers(1)}, opts...)...)
	if err != nil {
		t.Fatalf("start kfake: %v", err)
	}
	t.Cleanup(c.Close)
	return c.ListenAddrs()[0]
}

// sinkConfig returns a SinkConfig whose spec is the given kafka spec JSON.
func sinkConfig(t testing.TB, spec map[string]any) busv1.SinkConfig {
	t.Helper()
	b, err := json.Marshal(spec)
	if err != nil {
		t.Fatal(err)
	}
	return busv1.SinkConfig{Family: busv1.FamilyEvent, Type: "kafka", Namespace: "team-a", Name: "events",
		Cluster: sinktest.Cluster, Spec: b}
}

// spec is a kafka sink spec for broker and topic in mode.
func spec(broker, topic, mode string) map[string]any {
	return map[string]any{"type": "kafka", "cluster": sinktest.Cluster,
		"kafka": map[string]any{"brokers": []string{broker}, "topic": topic, "mode": mode}}
}

// newSink builds a sink through the Backend, as the runtime does.
func newSink(t testing.TB, b kafka.Backend, cfg busv1.SinkConfig, creds backend.Credentials) *kafka.Sink {
	t.Helper()
	s, err := b.New(context.Background(), cfg, creds)
	if err != nil {
		t.Fatalf("new kafka sink: %v", err)
	}
	t.Cleanup(func() { _ = s.Close(context.Background()) })
	return s.(*kafka.Sink)
}

var private = kafka.Backend{Egress: egress.Policy{AllowPrivate: true}}

// readTopic consumes topic from the start to its end offsets with its own
// client and returns every record in partition order.
func readTopic(ctx context.Context, broker, topic string, opts ...kgo.Opt) ([]*kgo.Record, error) {
	cl, err := kgo.NewClient(append([]kgo.Opt{kgo.SeedBrokers(broker), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart())}, opts...)...)
	if err != nil {
		return nil, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return nil, fmt.Errorf("list end offsets: %w", err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	var recs []*kgo.Record
	for len(want) > 0 {
		f := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		if errs := f.Errors(); len(errs) > 0 {
			return nil, fmt.Errorf("fetch: %w", errs[0].Err)
		}
		f.EachRecord(func(r *kgo.Record) {
			recs = append(recs, r)
			if r.Offset+1 >= want[r.Partition] {
				delete(want, r.Partition)
			}
		})
	}
	return recs, nil
}

func header(r *kgo.Record, key string) (string, bool) {
	for _, h := range r.Headers {
		if h.Key == key {
			return string(h.Value), true
		}
	}
	return "", false
}

// reader rebuilds an inventory's projection from the topic.
type reader struct {
	broker, topic string
	perRow        bool
	opts          []kgo.Opt // client options, such as SASL
}

func (r reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	recs, err := readTopic(ctx, r.broker, r.topic, r.opts...)
	if err != nil {
		return sinktest.Projection{}, false, err
	}
	if r.perRow {
		return compacted(recs, kafka.InventoryKey(cluster, inv))
	}
	return lastEnvelope(recs, kafka.InventoryKey(cluster, inv))
}

// lastEnvelope is the last complete envelope (all its parts) under key.
func lastEnvelope(recs []*kgo.Record, key string) (sinktest.Projection, bool, error) {
	var msgs []partstest.Message
	for _, r := range recs {
		if string(r.Key) == key {
			msgs = append(msgs, partstest.Message{Where: fmt.Sprintf("record at offset %d", r.Offset), Data: r.Value})
		}
	}
	return partstest.LastEnvelope(msgs)
}

// compacted is the log-compacted view of an inventory in perRow mode: the
// last value per row key under the inventory key (tombstones delete), with
// the revision and checksum of the last inventory record.
func compacted(recs []*kgo.Record, invKey string) (sinktest.Projection, bool, error) {
	rows := map[string]busv1.Row{}
	var p sinktest.Projection
	found := false
	for _, r := range recs {
		key := string(r.Key)
		switch {
		case key == invKey:
			var v kafka.InventoryValue
			if err := json.Unmarshal(r.Value, &v); err != nil {
				return p, false, fmt.Errorf("decode inventory record: %w", err)
			}
			p.Revision, p.Checksum, found = v.Revision, v.Checksum, true
		case !strings.HasPrefix(key, invKey+"/"):
		case r.Value == nil:
			delete(rows, key)
		default:
			var v kafka.RowValue
			if err := json.Unmarshal(r.Value, &v); err != nil {
				return p, false, fmt.Errorf("decode row record: %w", err)
			}
			rows[key] = v.Row
		}
	}
	for _, r := range rows {
		p.Rows = append(p.Rows, r)
	}
	slices.SortFunc(p.Rows, busv1.CompareRows)
	return p, found, nil
}

// expectPermanent fails unless err is a permanent error containing want.
func expectPermanent(t *testing.T, err error, want string) {
	t.Helper()
	if err == nil || !sink.IsPermanent(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("error = %v, want a permanent error containing %q", err, want)
	}
}

// topicConfig returns a topic's config value as the broker describes it.
func topicConfig(t *testing.T, broker, topic, name string) string {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	defer cl.Close()
	rcs, err := kadm.NewClient(cl).DescribeTopicConfigs(context.Background(), topic)
	if err != nil {
		t.Fatalf("describe topic %s: %v", topic, err)
	}
	rc, err := rcs.On(topic, nil)
	if err != nil {
		t.Fatalf("describe topic %s: %v", topic, err)
	}
	for _, c := range rc.Configs {
		if c.Key == name {
			return c.MaybeValue()
		}
	}
	return ""
}
