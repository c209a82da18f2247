package rowstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"sync"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// unknownHash is the known hash of a key whose last write has an unknown
// outcome: it matches no content, so the next put of the key is sent.
const unknownHash = 0

// wireEntry is busv1.RowEntry with the row already encoded: encoding it
// gives the bytes encoding the RowEntry would.
type wireEntry struct {
	Row              json.RawMessage `json:"row"`
	TargetGeneration int64           `json:"targetGeneration"`
	ObservedAt       time.Time       `json:"observedAt"`
}

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// encodeRow writes row's canonical JSON into buf and returns it with its
// content hash. Canonical is encoding/json's output (map keys sorted)
// without HTML escaping and without the trailing newline, as
// snapshot.Checksum hashes a row.
func encodeRow(buf *bytes.Buffer, row *busv1.Row) ([]byte, uint64, error) {
	buf.Reset()
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(row); err != nil {
		return nil, 0, fmt.Errorf("encode row %s: %w", bus.RowKey(row.Key()), err)
	}
	raw := bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
	return raw, hashBytes(raw), nil
}

// hashBytes hashes a row's canonical JSON; it never returns unknownHash.
func hashBytes(raw []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(raw)
	if s := h.Sum64(); s != unknownHash {
		return s
	}
	return unknownHash + 1
}

// encodeEntry returns the value of a row: the RowEntry of the canonical row
// raw, encoded without HTML escaping and without a trailing newline.
func encodeEntry(raw []byte, generation int64, observedAt time.Time) ([]byte, error) {
	out := bytes.NewBuffer(make([]byte, 0, len(raw)+96))
	enc := json.NewEncoder(out)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(wireEntry{Row: raw, TargetGeneration: generation, ObservedAt: observedAt}); err != nil {
		return nil, fmt.Errorf("encode row entry: %w", err)
	}
	return bytes.TrimSuffix(out.Bytes(), []byte{'\n'}), nil
}

// storedHash returns the content hash of a value in the rows bucket: the
// hash of its row field's bytes as stored. A row written by an older
// collector with HTML escaping hashes differently and is written again
// once, canonical.
func storedHash(value []byte) (uint64, error) {
	var e struct {
		Row json.RawMessage `json:"row"`
	}
	if err := json.Unmarshal(value, &e); err != nil {
		return 0, err
	}
	return hashBytes(e.Row), nil
}
