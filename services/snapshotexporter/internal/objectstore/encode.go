package objectstore

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"time"

	"github.com/klauspost/compress/zstd"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Content types of the objects written.
const (
	ContentTypeJSON    = "application/json"
	ContentTypeNDJSON  = "application/x-ndjson"
	ContentTypeParquet = "application/vnd.apache.parquet"
	ContentTypeGzip    = "application/gzip"
	ContentTypeZstd    = "application/zstd"
)

// Object is one object to store.
type Object struct {
	Key         string
	Body        []byte
	ContentType string
	// ColumnTypes are the types of a Parquet file's attr_ columns, by
	// column name; nil for JSON and NDJSON.
	ColumnTypes map[string]ColumnType
}

// Header is the first line of an NDJSON object: the envelope without its
// items.
type Header struct {
	SchemaVersion string               `json:"schemaVersion"`
	Checksum      string               `json:"checksum"`
	Revision      uint64               `json:"revision"`
	Generation    int64                `json:"generation"`
	Cluster       string               `json:"cluster"`
	Inventory     busv1.NamespacedName `json:"inventory"`
	ItemCount     int                  `json:"itemCount"`
	ExportedAt    time.Time            `json:"exportedAt"`
}

// Encode renders env as the object its layout stores: the JSON or NDJSON
// document, or the Parquet file. prev holds the column types of the
// inventory's previous Parquet file (from its pointer; nil when none), which
// a column no row has a value for keeps.
func (l *Layout) Encode(env *busv1.Envelope, prev map[string]ColumnType) (Object, error) {
	if l.Format == FormatParquet {
		body, types, err := l.EncodeParquet(env, prev)
		return Object{Key: l.ParquetKey(env), Body: body, ContentType: ContentTypeParquet, ColumnTypes: types}, err
	}
	var body []byte
	var err error
	ct := ContentTypeJSON
	if l.Format == FormatNDJSON {
		body, err = encodeNDJSON(env)
		ct = ContentTypeNDJSON
	} else {
		body, err = encodeJSON(env)
	}
	if err != nil {
		return Object{}, err
	}
	body, ct, err = compressBody(l.Compression, body, ct)
	return Object{Key: l.DocumentKey(env), Body: body, ContentType: ct}, err
}

// encodeJSON writes the envelope as busv1.Envelope.MarshalJSON does, in
// one pass over the rows: the header comes from MarshalJSON of the envelope
// without items, and the rows are streamed into the same buffer. (Encoding
// the whole envelope through its MarshalJSON would marshal the rows and then
// re-scan and copy the whole document, as encoding/json compacts what a
// Marshaler returns.)
func encodeJSON(env *busv1.Envelope) ([]byte, error) {
	head := *env
	head.Items = nil
	h, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}
	const empty = `[]}`
	if !bytes.HasSuffix(h, []byte(empty)) {
		return nil, fmt.Errorf("encode envelope: the header does not end with the items (%.40q)", h)
	}
	var buf bytes.Buffer
	buf.Grow(len(h) + 256*len(env.Items))
	buf.Write(h[:len(h)-len(empty)])
	buf.WriteByte('[')
	enc := json.NewEncoder(&buf)
	for i := range env.Items {
		if i > 0 {
			buf.WriteByte(',')
		}
		if err := enc.Encode(&env.Items[i]); err != nil {
			return nil, fmt.Errorf("encode row %s: %w", env.Items[i].UID, err)
		}
		buf.Truncate(buf.Len() - 1) // the encoder's newline
	}
	buf.WriteString("]}\n")
	return buf.Bytes(), nil
}

func encodeNDJSON(env *busv1.Envelope) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	h := Header{SchemaVersion: env.SchemaVersion, Checksum: env.Checksum, Revision: env.Revision,
		Generation: env.Generation, Cluster: env.Cluster, Inventory: env.Inventory, ItemCount: env.ItemCount,
		ExportedAt: env.ExportedAt.UTC()}
	if err := enc.Encode(h); err != nil {
		return nil, fmt.Errorf("encode ndjson header: %w", err)
	}
	for i := range env.Items {
		if err := enc.Encode(&env.Items[i]); err != nil {
			return nil, fmt.Errorf("encode row %s: %w", env.Items[i].UID, err)
		}
	}
	return buf.Bytes(), nil
}

// zstdEncoder compresses whole objects; EncodeAll is safe for concurrent use,
// so one encoder (and its buffers) serves every sink of the process.
var zstdEncoder = func() *zstd.Encoder {
	e, err := zstd.NewWriter(nil)
	if err != nil {
		panic(fmt.Sprintf("zstd encoder with default options: %v", err)) // cannot happen: no option can fail
	}
	return e
}()

// compressBody returns body compressed per compression and its content type.
func compressBody(compression string, body []byte, ct string) ([]byte, string, error) {
	switch compression {
	case CompressionGzip:
		var buf bytes.Buffer
		zw := gzip.NewWriter(&buf)
		if _, err := zw.Write(body); err != nil {
			return nil, "", fmt.Errorf("gzip object: %w", err)
		}
		if err := zw.Close(); err != nil {
			return nil, "", fmt.Errorf("gzip object: %w", err)
		}
		return buf.Bytes(), ContentTypeGzip, nil
	case CompressionZstd:
		return zstdEncoder.EncodeAll(body, nil), ContentTypeZstd, nil
	}
	return body, ct, nil
}
