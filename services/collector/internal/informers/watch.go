package informers

import (
	"errors"
	"fmt"
	"io"

	"encoding/json/jsontext"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/watch"
)

// eventDecoder reads a watch stream's events straight from the response
// body, each object decoded in the same pass by the informer's decoder:
// client-go's watch decoding would scan every event three times (its JSON
// framer, the event, then the object's bytes).
type eventDecoder struct {
	body io.ReadCloser
	dec  *jsontext.Decoder
	d    *decoder
}

func newEventDecoder(body io.ReadCloser, d *decoder) *eventDecoder {
	return &eventDecoder{body: body, d: d,
		dec: jsontext.NewDecoder(body, jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))}
}

var _ watch.Decoder = (*eventDecoder)(nil)

// Decode reads the next event; io.EOF when the API server ended the watch.
func (e *eventDecoder) Decode() (watch.EventType, runtime.Object, error) {
	tok, err := e.dec.ReadToken()
	if err != nil {
		return "", nil, streamError(err)
	}
	if tok.Kind() != '{' {
		return "", nil, fmt.Errorf("decode watch event: not a JSON object but %v", tok.Kind())
	}
	var typ watch.EventType
	var obj runtime.Object
	for e.dec.PeekKind() != '}' {
		name, err := e.dec.ReadToken()
		if err != nil {
			return "", nil, streamError(err)
		}
		switch name.String() {
		case "type":
			tok, err := e.dec.ReadToken()
			if err != nil {
				return "", nil, streamError(err)
			}
			if tok.Kind() != '"' {
				return "", nil, fmt.Errorf("decode watch event: type is not a string")
			}
			typ = watch.EventType(tok.String())
		case "object":
			if obj, err = e.d.read(e.dec); err != nil {
				return "", nil, streamError(err)
			}
		default:
			if err := e.dec.SkipValue(); err != nil {
				return "", nil, streamError(err)
			}
		}
	}
	if _, err := e.dec.ReadToken(); err != nil { // '}'
		return "", nil, streamError(err)
	}
	switch typ {
	case watch.Added, watch.Modified, watch.Deleted, watch.Error, watch.Bookmark:
	default:
		return "", nil, fmt.Errorf("got invalid watch event type: %q", typ)
	}
	if obj == nil {
		return "", nil, fmt.Errorf("decode watch event %s: no object", typ)
	}
	return typ, obj, nil
}

// streamError returns err as the stream watcher tells a watch the API
// server ended (io.EOF) or cut short (io.ErrUnexpectedEOF) from a bad one.
func streamError(err error) error {
	switch {
	case err == io.EOF:
		return io.EOF
	case errors.Is(err, io.ErrUnexpectedEOF):
		return io.ErrUnexpectedEOF
	}
	return err
}

// Close closes the body, which ends a Decode in progress.
func (e *eventDecoder) Close() { _ = e.body.Close() }
