package kafka

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"sync"

	"github.com/twmb/franz-go/pkg/kgo"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

// rowMemory holds, per cluster and inventory, the key and content hash of
// each row last sent in perRow mode, to send only what changed.
type rowMemory struct {
	mu   sync.Mutex
	sent map[string]map[string][32]byte // inventory key -> row key -> hash
}

func (m *rowMemory) get(inv string) (map[string][32]byte, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.sent[inv]
	return r, ok
}

func (m *rowMemory) put(inv string, rows map[string][32]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sent == nil {
		m.sent = map[string]map[string][32]byte{}
	}
	m.sent[inv] = rows
}

// rowValue is RowValue with the row already encoded.
type rowValue struct {
	RowValue
	Row json.RawMessage `json:"row"`
}

// writeRows sends, in perRow mode, one record per changed row and a
// tombstone per deleted row, then the inventory record. The changes are
// s.Delta's when set, else the difference with the rows this sink last
// sent for the inventory; without either, every row is sent.
func (k *Sink) writeRows(ctx context.Context, s sink.Snapshot) error {
	env := s.Envelope
	invKey := InventoryKey(env.Cluster, env.Inventory)
	prev, known := k.rows.get(invKey)
	encoded, next, err := encodeRows(env)
	if err != nil {
		return err
	}
	prefix, err := rowPrefix(env)
	if err != nil {
		return err
	}
	maxBytes := limit(s.MaxExportBytes, k.maxBytes)
	var recs []*kgo.Record
	send := func(i int) error {
		r, err := k.rowRecord(env, prefix, i, encoded[i], maxBytes)
		if err == nil {
			recs = append(recs, r)
		}
		return err
	}
	if s.Delta != nil {
		recs, err = k.deltaRecords(env, s.Delta, prefix, encoded, maxBytes)
	} else {
		for i, r := range env.Items {
			key := RowKey(env.Cluster, env.Inventory, r.Key())
			if h, ok := prev[key]; known && ok && h == next[key] {
				continue
			}
			if err = send(i); err != nil {
				break
			}
		}
		for key := range prev {
			if _, ok := next[key]; !ok {
				recs = append(recs, k.tombstone(env, key))
			}
		}
	}
	if err != nil {
		return err
	}
	if err := k.produce(ctx, recs); err != nil {
		return err
	}
	if err := k.produce(ctx, []*kgo.Record{k.inventoryRecord(env)}); err != nil {
		return err
	}
	k.rows.put(invKey, next)
	return nil
}

// deltaRecords are the records of d: its upserts, taken from the encoded
// rows of env, and a tombstone per delete.
func (k *Sink) deltaRecords(env busv1.Envelope, d *busv1.Delta, prefix []byte, encoded [][]byte, maxBytes int64) ([]*kgo.Record, error) {
	index := make(map[busv1.RowKey]int, len(env.Items))
	for i, r := range env.Items {
		index[r.Key()] = i
	}
	recs := make([]*kgo.Record, 0, len(d.Upserts)+len(d.Deletes))
	for _, u := range d.Upserts {
		i, ok := index[u.Key()]
		if !ok {
			return nil, sink.Permanent(fmt.Errorf("delta upserts %s, which is not in the snapshot", parts.RowName(u)))
		}
		r, err := k.rowRecord(env, prefix, i, encoded[i], maxBytes)
		if err != nil {
			return nil, err
		}
		recs = append(recs, r)
	}
	for _, del := range d.Deletes {
		recs = append(recs, k.tombstone(env, RowKey(env.Cluster, env.Inventory, del)))
	}
	return recs, nil
}

// encodeRows encodes each row of env and returns the encodings and the
// content hash of each row key.
func encodeRows(env busv1.Envelope) ([][]byte, map[string][32]byte, error) {
	encoded := make([][]byte, len(env.Items))
	hashes := make(map[string][32]byte, len(env.Items))
	for i, r := range env.Items {
		b, err := json.Marshal(r)
		if err != nil {
			return nil, nil, fmt.Errorf("encode row %s: %w", parts.RowName(r), err)
		}
		encoded[i] = b
		hashes[RowKey(env.Cluster, env.Inventory, r.Key())] = sha256.Sum256(b)
	}
	return encoded, hashes, nil
}

// rowPrefix is the encoded RowValue of env up to the row: every row value
// of one export shares it.
func rowPrefix(env busv1.Envelope) ([]byte, error) {
	b, err := json.Marshal(rowValue{RowValue: RowValue{SchemaVersion: env.SchemaVersion, Cluster: env.Cluster,
		Inventory: env.Inventory, Revision: env.Revision, Checksum: env.Checksum, ExportedAt: env.ExportedAt.UTC()},
		Row: json.RawMessage("null")})
	if err != nil || !bytes.HasSuffix(b, []byte(`"row":null}`)) {
		return nil, fmt.Errorf("encode row value of %s: %w", env.Inventory, err)
	}
	return b[:len(b)-len("null}")], nil
}

// rowRecord is the record of row i of env, whose encoding is row.
func (k *Sink) rowRecord(env busv1.Envelope, prefix []byte, i int, row []byte, maxBytes int64) (*kgo.Record, error) {
	r := env.Items[i]
	v := make([]byte, 0, len(prefix)+len(row)+1)
	v = append(append(append(v, prefix...), row...), '}')
	if int64(len(v)) > maxBytes {
		return nil, sink.Permanent(fmt.Errorf("row %s is %d bytes as a record, larger than maxExportBytes %d", parts.RowName(r), len(v), maxBytes))
	}
	h := append(headers(env), kgo.RecordHeader{Key: HeaderRecord, Value: []byte(RecordRow)})
	return &kgo.Record{Topic: k.set.topic, Key: []byte(RowKey(env.Cluster, env.Inventory, r.Key())), Value: v, Headers: h}, nil
}

// tombstone is the null-value record deleting key.
func (k *Sink) tombstone(env busv1.Envelope, key string) *kgo.Record {
	h := append(headers(env), kgo.RecordHeader{Key: HeaderRecord, Value: []byte(RecordRow)})
	return &kgo.Record{Topic: k.set.topic, Key: []byte(key), Headers: h}
}

// inventoryRecord closes an export in perRow mode: the envelope without
// items, keyed by the inventory.
func (k *Sink) inventoryRecord(env busv1.Envelope) *kgo.Record {
	v, _ := json.Marshal(inventoryValue(env)) // plain fields: cannot fail
	h := append(headers(env), kgo.RecordHeader{Key: HeaderRecord, Value: []byte(RecordInventory)})
	return &kgo.Record{Topic: k.set.topic, Key: []byte(InventoryKey(env.Cluster, env.Inventory)), Value: v, Headers: h}
}
