package kafka

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// The bounds of a recall (see recall).
const (
	// recallTail is how many records at the end of the inventory key's
	// partition are read to find the inventory's last export.
	recallTail = 10_000
	// maxRecallRecords is the largest topic (records between the start
	// and end offsets of every partition) whose perRow rows are read back
	// (Sink.recallLimit).
	maxRecallRecords = 1_000_000
	// recallTimeout bounds one recall's reading.
	recallTimeout = 30 * time.Second
)

// recalls remembers the inventories already recalled, by inventory key.
type recalls struct {
	mu   sync.Mutex
	done map[string]bool
}

func (r *recalls) first(invKey string) bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.done[invKey] {
		return false
	}
	if r.done == nil {
		r.done = map[string]bool{}
	}
	r.done[invKey] = true
	return true
}

// recall reads back from the topic, on the first write of an inventory
// since this sink started, what an earlier sink (before a restart) wrote
// for it, so that memory lost with the process costs neither duplicates
// nor tombstones:
//
//   - the inventory's last complete export under the inventory key (the
//     last part in snapshot mode, the inventory record in perRow mode),
//     read from the last recallTail records of that key's partition,
//     becomes the high-water mark: a revision re-delivered after a crash
//     between the produce and the export state is not sent again;
//   - in perRow mode, for a full write (no delta), the live row keys of the
//     inventory and the hash of each row, read from the whole topic when
//     it holds at most maxRecallRecords records, become the rows memory:
//     the write sends only changed rows and tombstones every row key the
//     snapshot lacks.
//
// Past a bound, or after recallTimeout, the part not read is not recalled
// and the write behaves as without it (see the package documentation).
func (k *Sink) recall(ctx context.Context, s sink.Snapshot) error {
	return k.recallFor(ctx, s.Envelope, k.set.perRow && s.Delta == nil)
}

// recallFor recalls env's inventory: its last export once, and its rows
// too when rows is set (once).
func (k *Sink) recallFor(ctx context.Context, env busv1.Envelope, rows bool) error {
	invKey := InventoryKey(env.Cluster, env.Inventory)
	if k.createdTopic() {
		return nil
	}
	_, known := k.produced.get(invKey)
	needLast := !known && k.recalled.first(invKey)
	// Rows are remembered with their hashes after a full write; deltas
	// alone leave them unknown, and a full write then must read them back
	// too (the export state was lost, say, with the bus's storage).
	mem, remembered := k.rows.get(invKey)
	needRows := rows && (!remembered || mem.hashes == nil) && k.recalled.first("rows:"+invKey)
	if !needLast && !needRows {
		return nil
	}
	ctx, cancel := context.WithTimeout(ctx, recallTimeout)
	defer cancel()
	starts, ends, err := k.offsets(ctx)
	if err != nil {
		return err
	}
	var last *busv1.Envelope
	if needLast {
		var rec *kgo.Record
		if last, rec = k.lastExport(ctx, invKey, starts, ends); last != nil {
			k.high.Sent(sink.Snapshot{Envelope: *last})
			k.produced.wrote(*last, rec)
		}
	}
	if !needRows {
		return nil
	}
	hashes, ok := k.liveRows(ctx, invKey, starts, ends)
	if !ok {
		return nil
	}
	r := sentRows{hashes: hashes, revision: mem.revision, checksum: mem.checksum}
	if last != nil {
		r.revision, r.checksum = last.Revision, last.Checksum
	}
	k.rows.put(invKey, r)
	return nil
}

// offsets lists the start and end offsets of the topic's partitions.
func (k *Sink) offsets(ctx context.Context) (kadm.ListedOffsets, kadm.ListedOffsets, error) {
	starts, err := k.adm.ListStartOffsets(ctx, k.set.topic)
	if err == nil {
		err = starts.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list start offsets of kafka topic %s: %w", k.set.topic, classify(ctx, err))
	}
	ends, err := k.adm.ListEndOffsets(ctx, k.set.topic)
	if err == nil {
		err = ends.Error()
	}
	if err != nil {
		return nil, nil, fmt.Errorf("list end offsets of kafka topic %s: %w", k.set.topic, classify(ctx, err))
	}
	return starts, ends, nil
}

// lastExport returns the header of the last complete export under invKey
// in the tail of its partition, and its last record; nil when the tail
// holds none.
func (k *Sink) lastExport(ctx context.Context, invKey string, starts, ends kadm.ListedOffsets) (*busv1.Envelope, *kgo.Record) {
	n := len(ends[k.set.topic])
	if n == 0 {
		return nil, nil
	}
	p := int32(kgo.StickyKeyPartitioner(nil).ForTopic(k.set.topic).Partition(&kgo.Record{Key: []byte(invKey)}, n)) //nolint:gosec // G115: a partition index
	start, _ := starts.Lookup(k.set.topic, p)
	end, _ := ends.Lookup(k.set.topic, p)
	from := max(start.Offset, end.Offset-recallTail)
	var last *busv1.Envelope
	var rec *kgo.Record
	k.scan(ctx, map[int32][2]int64{p: {from, end.Offset}}, func(r *kgo.Record) {
		if string(r.Key) != invKey {
			return
		}
		if env, ok := exportOf(r); ok {
			last, rec = env, r
		}
	})
	return last, rec
}

// exportOf returns the header an inventory-key record closes an export
// with: an inventory record, an unsplit snapshot or its last part.
func exportOf(r *kgo.Record) (*busv1.Envelope, bool) {
	h := map[string]string{}
	for _, kv := range r.Headers {
		h[kv.Key] = string(kv.Value)
	}
	if part := h[HeaderPart]; part != "" {
		i, n, _ := strings.Cut(part, "/")
		if ii, err := strconv.Atoi(i); err != nil || strconv.Itoa(ii+1) != n {
			return nil, false
		}
	}
	rev, err := strconv.ParseUint(h[HeaderRevision], 10, 64)
	ns, name, _ := strings.Cut(h[HeaderInventory], "/")
	if err != nil || h[HeaderChecksum] == "" || h[HeaderRecord] == RecordRow {
		return nil, false
	}
	return &busv1.Envelope{Cluster: h[HeaderCluster], Inventory: busv1.NamespacedName{Namespace: ns, Name: name},
		Revision: rev, Checksum: h[HeaderChecksum]}, true
}

// liveRows returns the hash of each live row of invKey in the whole topic
// (the last value per row key; a tombstone deletes), as writeRows computes
// it; false when the topic is larger than maxRecallRecords or the read did
// not reach the end offsets in time.
func (k *Sink) liveRows(ctx context.Context, invKey string, starts, ends kadm.ListedOffsets) (map[string][32]byte, bool) {
	bounds := map[int32][2]int64{}
	total := int64(0)
	ends.Each(func(o kadm.ListedOffset) {
		start, _ := starts.Lookup(o.Topic, o.Partition)
		if o.Offset > start.Offset {
			bounds[o.Partition] = [2]int64{start.Offset, o.Offset}
			total += o.Offset - start.Offset
		}
	})
	if total > k.recallLimit {
		return nil, false
	}
	prefix := invKey + "/"
	hashes := map[string][32]byte{}
	complete := k.scan(ctx, bounds, func(r *kgo.Record) {
		key := string(r.Key)
		if !strings.HasPrefix(key, prefix) {
			return
		}
		var v struct {
			Row json.RawMessage `json:"row"`
		}
		if r.Value == nil || json.Unmarshal(r.Value, &v) != nil {
			delete(hashes, key)
			return
		}
		hashes[key] = sha256.Sum256(v.Row)
	})
	return hashes, complete
}

// scan reads each partition of bounds from its first offset up to, not
// including, its second with a client of its own, calling f for every
// record in partition order; false when ctx ended first.
func (k *Sink) scan(ctx context.Context, bounds map[int32][2]int64, f func(*kgo.Record)) bool {
	parts := map[int32]kgo.Offset{}
	for p, b := range bounds {
		if b[1] > b[0] {
			parts[p] = kgo.NewOffset().At(b[0])
		}
	}
	if len(parts) == 0 {
		return true
	}
	cl, err := kgo.NewClient(append(k.opts, kgo.ConsumePartitions(map[string]map[int32]kgo.Offset{k.set.topic: parts}))...)
	if err != nil {
		return false
	}
	defer cl.Close()
	for len(parts) > 0 {
		fs := cl.PollFetches(ctx)
		if ctx.Err() != nil {
			return false
		}
		fs.EachPartition(func(p kgo.FetchTopicPartition) {
			for _, r := range p.Records {
				if r.Offset < bounds[p.Partition][1] {
					f(r)
				}
			}
			if n := len(p.Records); n > 0 && p.Records[n-1].Offset+1 >= bounds[p.Partition][1] {
				delete(parts, p.Partition)
			}
		})
	}
	return true
}

// createdTopic reports whether this sink created the topic (since it last
// found it missing): nothing in it was written before this sink started.
func (k *Sink) createdTopic() bool {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.created
}
