package extract

import (
	"encoding/json/jsontext"
	"fmt"
)

// DecodeJSON reads the next JSON value of dec as unstructured content, as
// k8s.io/apimachinery decodes it (objects as map[string]any, arrays as
// []any, integers as int64, other numbers as float64), keeping only what
// keep covers and nothing skip covers: the result equals Prune of the whole
// value decoded, without skip's paths, but the values left out are only
// scanned, never built. A nil keep keeps everything; a nil skip skips
// nothing.
func DecodeJSON(dec *jsontext.Decoder, keep, skip *FieldSet) (any, error) {
	if keep != nil && keep.whole {
		keep = nil
	}
	if skip != nil && len(skip.children) == 0 {
		skip = nil
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return nil, err
	}
	switch tok.Kind() {
	case '{':
		return decodeMembers(dec, keep, skip)
	case '[':
		s := []any{}
		for dec.PeekKind() != ']' {
			v, err := DecodeJSON(dec, keep, skip)
			if err != nil {
				return nil, err
			}
			s = append(s, v)
		}
		_, err := dec.ReadToken()
		return s, err
	case '"':
		return tok.String(), nil
	case '0':
		if i, err := tok.Int(); err == nil {
			return i, nil
		}
		return tok.Float()
	case 't', 'f':
		return tok.Bool(), nil
	case 'n':
		return nil, nil
	}
	return nil, fmt.Errorf("unexpected JSON token %v", tok.Kind())
}

// decodeMembers reads the members of an object whose '{' was read.
func decodeMembers(dec *jsontext.Decoder, keep, skip *FieldSet) (map[string]any, error) {
	n := 0
	if keep != nil {
		n = len(keep.children)
	}
	m := make(map[string]any, n)
	for dec.PeekKind() != '}' {
		tok, err := dec.ReadToken()
		if err != nil {
			return nil, err
		}
		name := tok.String() // before the next read voids tok
		var ck, cs *FieldSet
		if keep != nil {
			if ck = keep.children[name]; ck == nil {
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				continue
			}
		}
		if skip != nil {
			if cs = skip.children[name]; cs != nil && cs.whole {
				if err := dec.SkipValue(); err != nil {
					return nil, err
				}
				continue
			}
		}
		v, err := DecodeJSON(dec, ck, cs)
		if err != nil {
			return nil, err
		}
		m[name] = v
	}
	_, err := dec.ReadToken()
	return m, err
}
