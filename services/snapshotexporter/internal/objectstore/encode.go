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
// document, or the Parquet file.
func (l *Layout) Encode(env *busv1.Envelope) (Object, error) {
	if l.Format == FormatParquet {
		body, err := l.EncodeParquet(env)
		return Object{Key: l.ParquetKey(env), Body: body, ContentType: ContentTypeParquet}, err
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

func encodeJSON(env *busv1.Envelope) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(env); err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}
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
