package busv1

import (
	"encoding/json"
	"strconv"
)

// AppendJSON appends the JSON of m, byte for byte what encoding/json
// produces, without reflection: the aggregator writes one manifest per
// revision, and a manifest of a 100k-row snapshot has hundreds of chunks.
func (m *Manifest) AppendJSON(b []byte) []byte {
	b = append(b, `{"inventory":{"namespace":`...)
	b = appendString(b, m.Inventory.Namespace)
	b = append(b, `,"name":`...)
	b = appendString(b, m.Inventory.Name)
	b = append(b, `},"checksum":`...)
	b = appendString(b, m.Checksum)
	b = append(b, `,"itemCount":`...)
	b = strconv.AppendInt(b, int64(m.ItemCount), 10)
	b = append(b, `,"bytes":`...)
	b = strconv.AppendInt(b, m.Bytes, 10)
	if len(m.Chunks) > 0 {
		b = appendChunks(append(b, `,"chunks":`...), m.Chunks)
	}
	if len(m.Pages) > 0 {
		b = append(b, `,"pages":[`...)
		for i, p := range m.Pages {
			if i > 0 {
				b = append(b, ',')
			}
			b = append(b, `{"digest":`...)
			b = appendString(b, p.Digest)
			b = append(b, `,"size":`...)
			b = strconv.AppendInt(b, p.Size, 10)
			b = append(b, `,"chunks":`...)
			b = strconv.AppendInt(b, int64(p.Chunks), 10)
			b = append(b, `,"rows":`...)
			b = strconv.AppendInt(b, int64(p.Rows), 10)
			b = append(b, `,"bytes":`...)
			b = strconv.AppendInt(b, p.Bytes, 10)
			b = append(b, '}')
		}
		b = append(b, ']')
	}
	return append(b, '}')
}

// AppendJSON appends the JSON of p, byte for byte what encoding/json
// produces.
func (p *ManifestPage) AppendJSON(b []byte) []byte {
	b = append(b, `{"chunks":`...)
	if p.Chunks == nil {
		return append(b, `null}`...)
	}
	return append(appendChunks(b, p.Chunks), '}')
}

func appendChunks(b []byte, chunks []Chunk) []byte {
	b = append(b, '[')
	for i, c := range chunks {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, `{"digest":`...)
		b = appendString(b, c.Digest)
		b = append(b, `,"rows":`...)
		b = strconv.AppendInt(b, int64(c.Rows), 10)
		b = append(b, `,"bytes":`...)
		b = strconv.AppendInt(b, c.Bytes, 10)
		b = append(b, '}')
	}
	return append(b, ']')
}

// appendString appends s as a JSON string; names and digests need no
// escaping, anything else goes through encoding/json.
func appendString(b []byte, s string) []byte {
	for i := range len(s) {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' || c >= 0x7f || c == '<' || c == '>' || c == '&' {
			q, _ := json.Marshal(s)
			return append(b, q...)
		}
	}
	return append(append(append(b, '"'), s...), '"')
}
