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

// rowMemory holds, per cluster and inventory, what this sink last sent in
// perRow mode, to send only what changed.
type rowMemory struct {
	mu   sync.Mutex
	sent map[string]sentRows // by inventory key
}

// sentRows is the last snapshot sent for one inventory.
type sentRows struct {
	revision uint64
	checksum string
	// hashes are the content hash of each row sent, by row key; nil when
	// unknown (deltas only were sent since this sink started).
	hashes map[string][32]byte
}

func (m *rowMemory) get(inv string) (sentRows, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.sent[inv]
	return r, ok
}

func (m *rowMemory) put(inv string, rows sentRows) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sent == nil {
		m.sent = map[string]sentRows{}
	}
	m.sent[inv] = rows
}

// applied records that a delta moved inv to env: the hashes, when known,
// lose the deleted keys and take the upserted ones, in O(delta).
func (m *rowMemory) applied(inv string, env busv1.Envelope, deleted []string, upserted map[string][32]byte) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.sent == nil {
		m.sent = map[string]sentRows{}
	}
	r := m.sent[inv]
	for _, k := range deleted {
		delete(r.hashes, k)
	}
	if r.hashes != nil {
		for k, h := range upserted {
			r.hashes[k] = h
		}
	}
	r.revision, r.checksum = env.Revision, env.Checksum
	m.sent[inv] = r
}

// deltaApplies reports whether s's delta applies to what this sink last
// sent for the inventory: the sink sent its base, or sent nothing since it
// started (the runtime's export state then vouches for the base). A
// deletion's delta (rebuilt from the history, see NeedsDelta) deletes every
// row: its tombstones are what a restarted sink could not send otherwise.
func (k *Sink) deltaApplies(s sink.Snapshot) bool {
	d := s.Delta
	if d == nil || s.Replay {
		return false
	}
	last, ok := k.rows.get(InventoryKey(s.Envelope.Cluster, s.Envelope.Inventory))
	return !ok || last.revision == d.BaseRevision && last.checksum == d.BaseChecksum
}

// rowValue is RowValue with the row already encoded.
type rowValue struct {
	RowValue
	Row json.RawMessage `json:"row"`
}

// writeRows sends, in perRow mode, one record per changed row and a
// tombstone per deleted row, then the inventory record. The changes are
// s.Delta's when set (the envelope's items are not needed), else the
// difference with the rows this sink last sent for the inventory; without
// either, or for a repair, every row is sent. A full write reads the rows
// from s.Rows (streamed from the bus unless s is loaded) and produces the
// changed ones produceBatchBytes at a time: it holds a batch of records
// and the key and hash of every row, which the sink keeps anyway.
func (k *Sink) writeRows(ctx context.Context, s sink.Snapshot) error {
	if s.Delta != nil {
		return k.writeDeltaRows(ctx, s)
	}
	env := s.Envelope
	invKey := InventoryKey(env.Cluster, env.Inventory)
	last, _ := k.rows.get(invKey)
	prev := last.hashes
	prefix, err := rowPrefix(env)
	if err != nil {
		return err
	}
	maxBytes := limit(s.MaxExportBytes, k.maxBytes)
	next := make(map[string][32]byte, env.ItemCount)
	var (
		batch []*kgo.Record
		size  int
		n     int
	)
	for raw, err := range s.Rows(ctx) {
		if err != nil {
			return err
		}
		n++
		r, err := rowIdentity(raw)
		if err != nil {
			return sink.Permanent(fmt.Errorf("decode row %d of %s: %w", n, env.Inventory, err))
		}
		row := parts.AppendRow(nil, raw)
		key := RowKey(env.Cluster, env.Inventory, r.Key())
		h := sha256.Sum256(row)
		next[key] = h
		if ph, ok := prev[key]; ok && ph == h && !s.Repair {
			continue
		}
		rec, err := k.rowRecord(env, prefix, r, row, maxBytes)
		if err != nil {
			return err
		}
		if batch, size = append(batch, rec), size+len(rec.Value); size >= produceBatchBytes {
			if err := k.produce(ctx, batch); err != nil {
				return err
			}
			batch, size = nil, 0
		}
	}
	if n != env.ItemCount {
		return fmt.Errorf("the snapshot of %s streamed %d rows, its header says %d", env.Inventory, n, env.ItemCount)
	}
	for key := range prev {
		if _, ok := next[key]; !ok {
			batch = append(batch, k.tombstone(env, key))
		}
	}
	if err := k.close(ctx, env, batch); err != nil {
		return err
	}
	k.rows.put(invKey, sentRows{revision: env.Revision, checksum: env.Checksum, hashes: next})
	return nil
}

// rowIdentity decodes a row's key and names from its JSON, not its
// attributes: what its record's key and messages need.
func rowIdentity(raw []byte) (busv1.Row, error) {
	var v struct {
		TargetNamespace string `json:"targetNamespace"`
		TargetName      string `json:"targetName"`
		Namespace       string `json:"namespace"`
		Name            string `json:"name"`
		UID             string `json:"uid"`
		Kind            string `json:"kind"`
	}
	err := json.Unmarshal(raw, &v)
	return busv1.Row{TargetNamespace: v.TargetNamespace, TargetName: v.TargetName, Namespace: v.Namespace, Name: v.Name,
		UID: v.UID, Kind: v.Kind}, err
}

// writeDeltaRows sends the records of s.Delta: its upserts, encoded from the
// delta alone, and a tombstone per delete, then the inventory record; the
// rows memory changes by the delta's keys only.
func (k *Sink) writeDeltaRows(ctx context.Context, s sink.Snapshot) error {
	env, d := s.Envelope, s.Delta
	prefix, err := rowPrefix(env)
	if err != nil {
		return err
	}
	maxBytes := limit(s.MaxExportBytes, k.maxBytes)
	recs := make([]*kgo.Record, 0, len(d.Upserts)+len(d.Deletes))
	upserted := make(map[string][32]byte, len(d.Upserts))
	for _, u := range d.Upserts {
		b, err := json.Marshal(u)
		if err != nil {
			return fmt.Errorf("encode row %s: %w", parts.RowName(u), err)
		}
		rec, err := k.rowRecord(env, prefix, u, b, maxBytes)
		if err != nil {
			return err
		}
		recs = append(recs, rec)
		upserted[string(rec.Key)] = sha256.Sum256(b)
	}
	deleted := make([]string, len(d.Deletes))
	for i, del := range d.Deletes {
		deleted[i] = RowKey(env.Cluster, env.Inventory, del)
		recs = append(recs, k.tombstone(env, deleted[i]))
	}
	if err := k.close(ctx, env, recs); err != nil {
		return err
	}
	k.rows.applied(InventoryKey(env.Cluster, env.Inventory), env, deleted, upserted)
	return nil
}

// close sends recs and, once they are acknowledged, the inventory record
// that closes the export.
func (k *Sink) close(ctx context.Context, env busv1.Envelope, recs []*kgo.Record) error {
	if err := k.produce(ctx, recs); err != nil {
		return err
	}
	inv := k.inventoryRecord(env)
	if err := k.produce(ctx, []*kgo.Record{inv}); err != nil {
		return err
	}
	k.produced.wrote(env, inv)
	return nil
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

// rowRecord is the record of row r of env, whose encoding is row.
func (k *Sink) rowRecord(env busv1.Envelope, prefix []byte, r busv1.Row, row []byte, maxBytes int64) (*kgo.Record, error) {
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
