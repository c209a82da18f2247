package rowstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"hash/fnv"
	"strconv"
	"sync"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// unknownHash is the known hash of a key whose last write has an unknown
// outcome: it matches no content, so the next put of the key is sent.
const unknownHash = 0

var buffers = sync.Pool{New: func() any { return new(bytes.Buffer) }}

// entryPrefix begins the encoding of a busv1.RowEntry: its row field.
const entryPrefix = `{"row":`

// encodeRow begins the value of row in buf, whose contents it replaces:
// it writes the RowEntry's opening and row's canonical JSON, and returns
// the row's bytes (within buf) with the content hash of the entry to be:
// the row's with the attribute types' (types, the JSON of the Profile's
// busv1.AttributeTypes; nil when it declares none). Canonical is
// encoding/json's output (map keys sorted) without HTML escaping and
// without the trailing newline, as snapshot.Checksum hashes a row.
// encodeEntry completes the value.
func encodeRow(buf *bytes.Buffer, row *busv1.Row, types []byte) ([]byte, uint64, error) {
	buf.Reset()
	buf.WriteString(entryPrefix)
	enc := json.NewEncoder(buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(row); err != nil {
		return nil, 0, fmt.Errorf("encode row %s: %w", bus.RowKey(row.Key()), err)
	}
	buf.Truncate(buf.Len() - 1) // the newline
	raw := buf.Bytes()[len(entryPrefix):]
	return raw, hashBytes(raw, types), nil
}

// hashBytes hashes a row's canonical JSON and the attribute types sent
// with it (a row sent without types hashes as its JSON alone); it never
// returns unknownHash. A change of the declared types alone is a new
// content, written again.
func hashBytes(raw, types []byte) uint64 {
	h := fnv.New64a()
	_, _ = h.Write(raw)
	if len(types) > 0 {
		_, _ = h.Write([]byte{0})
		_, _ = h.Write(types)
	}
	if s := h.Sum64(); s != unknownHash {
		return s
	}
	return unknownHash + 1
}

// encodeEntry completes in buf the value encodeRow began and returns a
// copy of it: the bytes encoding/json gives the busv1.RowEntry (without
// HTML escaping and without a trailing newline), written without encoding
// the row a second time. types are the attributeTypes field's JSON,
// omitted when empty.
func encodeEntry(buf *bytes.Buffer, generation int64, observedAt time.Time, types []byte) ([]byte, error) {
	buf.WriteString(`,"targetGeneration":`)
	buf.Write(strconv.AppendInt(buf.AvailableBuffer(), generation, 10))
	buf.WriteString(`,"observedAt":"`)
	at, err := observedAt.AppendText(buf.AvailableBuffer())
	if err != nil {
		return nil, fmt.Errorf("encode row entry: %w", err)
	}
	buf.Write(at)
	buf.WriteByte('"')
	if len(types) > 0 {
		buf.WriteString(`,"attributeTypes":`)
		buf.Write(types)
	}
	buf.WriteByte('}')
	return bytes.Clone(buf.Bytes()), nil
}

// storedHash returns the content hash of a value in the rows bucket: the
// hash of its row field's and attributeTypes field's bytes as stored. A
// row written by an older collector with HTML escaping, or without
// attribute types, hashes differently and is written again once.
func storedHash(value []byte) (uint64, error) {
	var e struct {
		Row   json.RawMessage `json:"row"`
		Types json.RawMessage `json:"attributeTypes"`
	}
	if err := json.Unmarshal(value, &e); err != nil {
		return 0, err
	}
	return hashBytes(e.Row, e.Types), nil
}
