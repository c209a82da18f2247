package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
)

// kafkaTopic is the fault run's perRow topic (log-compacted).
const kafkaTopic = "kollect.faults"

// kafkaSink is the in-process Kafka (kfake) of a fault run and a reader of
// its topic. kfake keeps the log in memory, so it is the one peer the suite
// does not kill.
type kafkaSink struct {
	cluster *kfake.Cluster
	addr    string
}

func newKafkaSink() (*kafkaSink, error) {
	c, err := kfake.NewCluster(kfake.NumBrokers(1))
	if err != nil {
		return nil, fmt.Errorf("start kfake: %w", err)
	}
	return &kafkaSink{cluster: c, addr: c.ListenAddrs()[0]}, nil
}

func (k *kafkaSink) close() { k.cluster.Close() }

// kafkaView is the topic read from its start: the compacted view (row
// key → the latest row's seq, tombstones applied) and how many row records
// repeated a (key, revision) already sent.
type kafkaView struct {
	rows     map[string]string // uid → seq
	repeated int
	records  int
	revision uint64 // of the latest inventory record
	checksum string
}

// read consumes the whole topic of the fault run.
func (k *kafkaSink) read(ctx context.Context) (kafkaView, error) { return k.readTopic(ctx, kafkaTopic) }

// readTopic consumes the whole of topic.
func (k *kafkaSink) readTopic(ctx context.Context, kafkaTopic string) (kafkaView, error) {
	v := kafkaView{rows: map[string]string{}}
	cl, err := kgo.NewClient(kgo.SeedBrokers(k.addr))
	if err != nil {
		return v, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, kafkaTopic)
	if err != nil {
		return v, err
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Err == nil && o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	if len(want) == 0 {
		return v, nil
	}
	offsets := map[string]map[int32]kgo.Offset{kafkaTopic: {}}
	for p := range want {
		offsets[kafkaTopic][p] = kgo.NewOffset().AtStart()
	}
	cl.AddConsumePartitions(offsets)
	seen := map[string]bool{} // key@revision of row records
	byKey := map[string]string{}
	for len(want) > 0 {
		fs := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return v, err
		}
		var ferr error
		fs.EachError(func(_ string, _ int32, err error) { ferr = err })
		if ferr != nil {
			return v, ferr
		}
		fs.EachRecord(func(r *kgo.Record) {
			v.records++
			if r.Offset+1 >= want[r.Partition] {
				delete(want, r.Partition)
			}
			kind, rev := "", ""
			for _, h := range r.Headers {
				switch h.Key {
				case "kollect-record":
					kind = string(h.Value)
				case "kollect-revision":
					rev = string(h.Value)
				}
			}
			key := string(r.Key)
			switch {
			case kind == "inventory":
				var env struct {
					Revision uint64 `json:"revision"`
					Checksum string `json:"checksum"`
				}
				if json.Unmarshal(r.Value, &env) == nil {
					v.revision, v.checksum = env.Revision, env.Checksum
				}
			case r.Value == nil:
				delete(byKey, key)
			default:
				var rec struct {
					Row struct {
						UID        string         `json:"uid"`
						Attributes map[string]any `json:"attributes"`
					} `json:"row"`
				}
				if json.Unmarshal(r.Value, &rec) != nil {
					return
				}
				if seen[key+"@"+rev] {
					v.repeated++
				}
				seen[key+"@"+rev] = true
				seq, _ := rec.Row.Attributes["seq"].(string)
				byKey[key] = rec.Row.UID + "\x00" + seq
			}
		})
	}
	for _, uv := range byKey {
		for i := range len(uv) {
			if uv[i] == 0 {
				v.rows[uv[:i]] = uv[i+1:]
				break
			}
		}
	}
	return v, nil
}

// kafkaResources are the event sink of the fault run: perRow on a compacted topic.
func kafkaResources(addr string) string {
	return fmt.Sprintf(`apiVersion: kollect.dev/v1alpha1
kind: KollectEventSink
metadata: {name: kafka, namespace: %[1]s}
spec:
  type: kafka
  cluster: %[2]s
  kafka:
    brokers: [%[3]s]
    topic: %[4]s
    mode: perRow`, ControlNamespace, Cluster, strconv.Quote(addr), kafkaTopic)
}
