package extract

import (
	"encoding/json/jsontext"
	"fmt"
	"math"
	"strconv"
	"strings"
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
		ck, cs, ok := children(keep, skip, name)
		if !ok {
			if err := dec.SkipValue(); err != nil {
				return nil, err
			}
			continue
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

// CopyJSON copies the next JSON value of dec to enc, keeping only what keep
// covers and nothing skip covers: the JSON of what DecodeJSON would return,
// written without building it. Kept values are copied as they were sent.
func CopyJSON(dec *jsontext.Decoder, enc *jsontext.Encoder, keep, skip *FieldSet) error {
	if keep != nil && keep.whole {
		keep = nil
	}
	if skip != nil && len(skip.children) == 0 {
		skip = nil
	}
	if keep == nil && skip == nil {
		v, err := dec.ReadValue()
		if err != nil {
			return err
		}
		return enc.WriteValue(v)
	}
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	switch tok.Kind() {
	case '{':
		if err := enc.WriteToken(jsontext.BeginObject); err != nil {
			return err
		}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			name := tok.String()
			ck, cs, ok := children(keep, skip, name)
			if !ok {
				if err := dec.SkipValue(); err != nil {
					return err
				}
				continue
			}
			if err := enc.WriteToken(jsontext.String(name)); err != nil {
				return err
			}
			if err := CopyJSON(dec, enc, ck, cs); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return enc.WriteToken(jsontext.EndObject)
	case '[':
		if err := enc.WriteToken(jsontext.BeginArray); err != nil {
			return err
		}
		for dec.PeekKind() != ']' {
			if err := CopyJSON(dec, enc, keep, skip); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil {
			return err
		}
		return enc.WriteToken(jsontext.EndArray)
	}
	return enc.WriteToken(tok)
}

// children returns the sets of the member name of an object read with keep
// and skip, and whether the member is kept at all.
func children(keep, skip *FieldSet, name string) (ck, cs *FieldSet, ok bool) {
	if keep != nil {
		if ck = keep.children[name]; ck == nil {
			return nil, nil, false
		}
	}
	if skip != nil {
		if cs = skip.children[name]; cs != nil && cs.whole {
			return nil, nil, false
		}
	}
	return ck, cs, true
}

// EncodeJSON writes unstructured content (what DecodeJSON returns) to enc.
func EncodeJSON(enc *jsontext.Encoder, v any) error {
	switch t := v.(type) {
	case map[string]any:
		if err := enc.WriteToken(jsontext.BeginObject); err != nil {
			return err
		}
		for k, e := range t {
			if err := enc.WriteToken(jsontext.String(k)); err != nil {
				return err
			}
			if err := EncodeJSON(enc, e); err != nil {
				return err
			}
		}
		return enc.WriteToken(jsontext.EndObject)
	case []any:
		if err := enc.WriteToken(jsontext.BeginArray); err != nil {
			return err
		}
		for _, e := range t {
			if err := EncodeJSON(enc, e); err != nil {
				return err
			}
		}
		return enc.WriteToken(jsontext.EndArray)
	case string:
		return enc.WriteToken(jsontext.String(t))
	case int64:
		return enc.WriteToken(jsontext.Int(t))
	case float64:
		if t != math.Trunc(t) || math.IsInf(t, 0) {
			return enc.WriteToken(jsontext.Float(t))
		}
		// An integral float stays a float when decoded again: 3.0, not 3.
		f := strconv.FormatFloat(t, 'g', -1, 64)
		if !strings.ContainsAny(f, ".e") {
			f += ".0"
		}
		return enc.WriteValue(jsontext.Value(f))
	case bool:
		return enc.WriteToken(jsontext.Bool(t))
	case nil:
		return enc.WriteToken(jsontext.Null)
	}
	return fmt.Errorf("cannot encode %T as unstructured JSON", v)
}
