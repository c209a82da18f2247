package postgres

import (
	"context"
	"encoding/json"
	"fmt"
	"iter"

	"kollect.dev/kollect/pkg/sink"
)

// streamSource yields the rows of a snapshot as the sink reads them
// (sink.Snapshot.Rows): from the bus one chunk at a time when the snapshot
// is not loaded, so that a full write holds a chunk of rows, not the
// inventory. The attributes go to the server as the row's canonical JSON.
type streamSource struct {
	next func() (json.RawMessage, error, bool)
	stop func()
	raw  streamedRow
	row  copyRow
	n    int
	err  error
	p    jsonbParser
	buf  []byte
}

// streamedRow decodes a row's canonical JSON without its attributes.
type streamedRow struct {
	TargetNamespace string          `json:"targetNamespace"`
	TargetName      string          `json:"targetName"`
	Namespace       string          `json:"namespace"`
	Name            string          `json:"name"`
	UID             string          `json:"uid"`
	Group           string          `json:"group"`
	Version         string          `json:"version"`
	Kind            string          `json:"kind"`
	Attributes      json.RawMessage `json:"attributes"`
}

// newStreamSource starts reading s's rows; Close stops it.
func newStreamSource(ctx context.Context, s sink.Snapshot) *streamSource {
	next, stop := iter.Pull2(s.Rows(ctx))
	return &streamSource{next: next, stop: stop}
}

// Next advances to the next row.
func (s *streamSource) Next() bool {
	if s.err != nil {
		return false
	}
	raw, err, ok := s.next()
	if !ok {
		return false
	}
	if err != nil {
		s.err = err
		return false
	}
	if !s.decode(raw) {
		s.raw = streamedRow{}
		if err := json.Unmarshal(raw, &s.raw); err != nil {
			s.err = sink.Permanent(fmt.Errorf("decode row %d: %w", s.n, err))
			return false
		}
	}
	r := &s.raw
	s.row.cols = [8]string{r.TargetNamespace, r.TargetName, r.UID, r.Namespace, r.Name, r.Group, r.Version, r.Kind}
	s.row.attrs = r.Attributes
	if len(s.row.attrs) == 0 || string(s.row.attrs) == "null" {
		s.row.attrs = emptyObject // as appendAttributes writes nil attributes
	}
	s.n++
	return true
}

var emptyObject = []byte("{}")

// Row returns the current row.
func (s *streamSource) Row() *copyRow { return &s.row }

// Err returns the error that stopped the rows.
func (s *streamSource) Err() error { return s.err }

// Close stops reading.
func (s *streamSource) Close() { s.stop() }

// decode reads a row's canonical JSON into s.raw without reflection, the
// attributes as the bytes they are; false when raw is not a flat object of
// strings and the attributes (then encoding/json decodes it).
func (s *streamSource) decode(raw []byte) bool {
	p := &s.p
	p.src, p.i = raw, 0
	s.raw = streamedRow{}
	buf := s.buf[:0]
	type field struct {
		name string
		dst  *string
	}
	r := &s.raw
	fields := [...]field{{"targetNamespace", &r.TargetNamespace}, {"targetName", &r.TargetName}, {"namespace", &r.Namespace},
		{"name", &r.Name}, {"uid", &r.UID}, {"group", &r.Group}, {"version", &r.Version}, {"kind", &r.Kind}}
	if p.space(); p.i >= len(raw) || raw[p.i] != '{' {
		return false
	}
	p.i++
	for {
		p.space()
		if p.i >= len(raw) || raw[p.i] != '"' {
			return false
		}
		var ok bool
		at := len(buf)
		if buf, ok = p.str(buf); !ok {
			return false
		}
		key := buf[at:]
		buf = buf[:at]
		if p.space(); p.i >= len(raw) || raw[p.i] != ':' {
			return false
		}
		p.i++
		p.space()
		if string(key) == "attributes" {
			start := p.i
			if !p.skip() {
				return false
			}
			r.Attributes = raw[start:p.i]
		} else {
			var dst *string
			for _, f := range fields {
				if f.name == string(key) {
					dst = f.dst
				}
			}
			if dst == nil || p.i >= len(raw) || raw[p.i] != '"' {
				return false
			}
			if buf, ok = p.str(buf); !ok {
				return false
			}
			*dst = string(buf[at:])
			buf = buf[:at]
		}
		p.space()
		if p.i >= len(raw) {
			return false
		}
		if raw[p.i] == '}' {
			p.i++
			break
		}
		if raw[p.i] != ',' {
			return false
		}
		p.i++
	}
	s.buf = buf
	p.space()
	return p.i == len(raw)
}
