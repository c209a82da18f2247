package informers

import (
	"bytes"
	"encoding/json/jsontext"
	"fmt"
	"sync"

	"kollect.dev/kollect/pkg/extract"
)

// The JSON readers and writers of the cache are pooled: a new jsontext
// decoder or encoder allocates its buffers.
var (
	decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}
	encoders = sync.Pool{New: func() any { return &restWriter{enc: new(jsontext.Encoder)} }}
)

// newDecoder returns a pooled decoder of data that reads JSON as
// apimachinery does: duplicate names are allowed (the last one wins) and
// invalid UTF-8 becomes U+FFFD. It reads data in place, without copying
// it (a bytes.Buffer source); putDecoder returns it.
func newDecoder(data []byte) *jsontext.Decoder {
	dec := decoders.Get().(*jsontext.Decoder)
	dec.Reset(bytes.NewBuffer(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return dec
}

// putDecoder returns a decoder to the pool holding nothing of what it read
// (a list response can be hundreds of MB).
func putDecoder(dec *jsontext.Decoder) {
	dec.Reset(new(bytes.Buffer))
	decoders.Put(dec)
}

// restWriter writes the members of an Object's rest, a JSON object.
type restWriter struct {
	buf     bytes.Buffer
	enc     *jsontext.Encoder
	members int
}

// newRestWriter returns a pooled writer; done returns it.
func newRestWriter() *restWriter {
	w := encoders.Get().(*restWriter)
	w.buf.Reset()
	w.members = 0
	w.enc.Reset(&w.buf, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return w
}

// name begins a member.
func (w *restWriter) name(n string) error {
	if w.members == 0 {
		if err := w.enc.WriteToken(jsontext.BeginObject); err != nil {
			return err
		}
	}
	w.members++
	return w.enc.WriteToken(jsontext.String(n))
}

// value writes a member's unstructured value.
func (w *restWriter) value(n string, v any) error {
	if err := w.name(n); err != nil {
		return err
	}
	return extract.EncodeJSON(w.enc, v)
}

// done returns a copy of the object written, nil when it has no member,
// and puts w back in the pool.
func (w *restWriter) done() ([]byte, error) {
	defer encoders.Put(w)
	if w.members == 0 {
		return nil, nil
	}
	if err := w.enc.WriteToken(jsontext.EndObject); err != nil {
		return nil, err
	}
	return bytes.Clone(bytes.TrimSuffix(w.buf.Bytes(), []byte{'\n'})), nil
}

// decodeRest decodes an Object's rest.
func decodeRest(rest []byte) (map[string]any, error) {
	dec := newDecoder(rest)
	defer putDecoder(dec)
	v, err := extract.DecodeJSON(dec, nil, nil)
	if err != nil {
		return nil, err
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("cached content is %T, not an object", v)
	}
	return m, nil
}
