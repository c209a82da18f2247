package objectstore

import (
	"bufio"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"

	"github.com/klauspost/compress/zstd"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

// StreamPutter is implemented by buckets that can store an object of
// unknown length from a stream (a GCS upload, an S3 multipart upload), with
// Put's condition and errors: a full write of a JSON or NDJSON layout then
// encodes the rows as it reads them from the bus and never holds the
// object.
type StreamPutter interface {
	PutStream(ctx context.Context, key string, body io.Reader, contentType, contentEncoding string, cond Condition) (Info, error)
}

// streams reports whether k writes full snapshots from a stream: JSON and
// NDJSON layouts on a StreamPutter bucket (a Parquet file is written
// whole: its footer needs every row group).
func (k *Sink) streams() bool {
	_, ok := k.bucket.(StreamPutter)
	return ok && k.layout.Format != FormatParquet
}

// StreamsRows makes the runtime hand full writes the rows as a stream
// (sink.RowStreamer) when the sink writes from one.
func (k *Sink) StreamsRows() bool { return k.streams() }

// streamObject returns the object s renders to, with its body read from
// s's rows as the bucket uploads it: body encodes into a pipe, so that the
// rows are read a chunk at a time while the upload sends them.
func (l *Layout) streamObject(ctx context.Context, s sink.Snapshot) (Object, func() io.ReadCloser) {
	env := &s.Envelope
	ct := ContentTypeJSON
	if l.Format == FormatNDJSON {
		ct = ContentTypeNDJSON
	}
	switch l.Compression {
	case CompressionGzip:
		ct = ContentTypeGzip
	case CompressionZstd:
		ct = ContentTypeZstd
	}
	body := func() io.ReadCloser {
		r, w := io.Pipe()
		go func() { w.CloseWithError(l.encodeStream(ctx, w, s)) }()
		return r
	}
	return Object{Key: l.DocumentKey(env), ContentType: ct}, body
}

// encodeStream writes the document of s to w as encodeJSON and
// encodeNDJSON write it from loaded items: the same header, the rows as
// the bus holds them (canonical JSON; HTML characters escaped in JSON, as
// its encoder escapes them), compressed per the layout.
func (l *Layout) encodeStream(ctx context.Context, dst io.Writer, s sink.Snapshot) error {
	bw := bufio.NewWriterSize(dst, 256<<10)
	var (
		out   io.Writer = bw
		flush           = func() error { return nil }
	)
	switch l.Compression {
	case CompressionGzip:
		zw := gzip.NewWriter(bw)
		out, flush = zw, zw.Close
	case CompressionZstd:
		zw, err := zstd.NewWriter(bw)
		if err != nil {
			return fmt.Errorf("zstd encoder: %w", err)
		}
		out, flush = zw, zw.Close
	}
	if err := l.encodeRows(ctx, out, s); err != nil {
		return err
	}
	if err := flush(); err != nil {
		return fmt.Errorf("compress object: %w", err)
	}
	return bw.Flush()
}

// encodeRows writes the uncompressed document.
func (l *Layout) encodeRows(ctx context.Context, w io.Writer, s sink.Snapshot) error {
	env := &s.Envelope
	var head []byte
	if l.Format == FormatNDJSON {
		h := Header{SchemaVersion: env.SchemaVersion, Checksum: env.Checksum, Revision: env.Revision,
			Generation: env.Generation, Cluster: env.Cluster, Inventory: env.Inventory, ItemCount: env.ItemCount,
			ExportedAt: env.ExportedAt.UTC()}
		b, err := marshalNoHTML(h)
		if err != nil {
			return fmt.Errorf("encode ndjson header: %w", err)
		}
		head = b
	} else {
		b, err := jsonHead(env)
		if err != nil {
			return err
		}
		head = append(b, '[')
	}
	if _, err := w.Write(head); err != nil {
		return err
	}
	var (
		buf []byte
		n   int
	)
	for raw, err := range s.Rows(ctx) {
		if err != nil {
			return err
		}
		buf = buf[:0]
		if l.Format == FormatNDJSON {
			buf = append(append(buf, raw...), '\n')
		} else {
			if n > 0 {
				buf = append(buf, ',')
			}
			buf = appendHTMLEscaped(buf, raw)
		}
		if _, err := w.Write(buf); err != nil {
			return err
		}
		n++
	}
	if n != env.ItemCount {
		return fmt.Errorf("the snapshot streamed %d rows, its header says %d", n, env.ItemCount)
	}
	if l.Format != FormatNDJSON {
		_, err := io.WriteString(w, "]}\n")
		return err
	}
	return nil
}

// jsonHead is the JSON envelope of env without items and without the
// closing "[]}" of its empty item list.
func jsonHead(env *busv1.Envelope) ([]byte, error) {
	head := *env
	head.Items = nil
	h, err := json.Marshal(head)
	if err != nil {
		return nil, fmt.Errorf("encode envelope: %w", err)
	}
	const empty = `[]}`
	if len(h) < len(empty) || string(h[len(h)-len(empty):]) != empty {
		return nil, fmt.Errorf("encode envelope: the header does not end with the items (%.40q)", h)
	}
	return h[:len(h)-len(empty)], nil
}

// marshalNoHTML encodes v as json.Encoder with SetEscapeHTML(false) does,
// its newline included.
func marshalNoHTML(v any) ([]byte, error) {
	var b bufferWriter
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	err := enc.Encode(v)
	return b, err
}

type bufferWriter []byte

func (b *bufferWriter) Write(p []byte) (int, error) {
	*b = append(*b, p...)
	return len(p), nil
}

// appendHTMLEscaped appends raw JSON with <, > and & escaped as
// encoding/json escapes them by default (json.HTMLEscape, without its
// buffer).
func appendHTMLEscaped(b, raw []byte) []byte {
	start := 0
	for i, c := range raw {
		if c == '<' || c == '>' || c == '&' {
			b = append(b, raw[start:i]...)
			b = append(b, '\\', 'u', '0', '0', hexDigit[c>>4], hexDigit[c&0xf])
			start = i + 1
		}
		// U+2028 and U+2029 are escaped by the canonical encoding already.
	}
	return append(b, raw[start:]...)
}

const hexDigit = "0123456789abcdef"
