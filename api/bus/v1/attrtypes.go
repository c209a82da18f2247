package busv1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"strconv"
)

// AttributeTypes are the declared types of attributes (v1alpha1
// AttributeType: string, int, float, bool, list, map, any) by attribute
// name. They are not part of a row's content: the collector sends them
// beside the row (RowEntry), the aggregator merges them per inventory
// (SnapshotEvent), and sinks with typed columns read them from the envelope
// (Envelope.AttributeTypes). An attribute absent from the map has no
// declared type: sinks infer its column type from the values, as before
// types were carried.
type AttributeTypes map[string]string

// The declared attribute types a sink types a column by; any other value
// (any, or empty) is no declared type.
const (
	AttributeString = "string"
	AttributeInt    = "int"
	AttributeFloat  = "float"
	AttributeBool   = "bool"
	AttributeList   = "list"
	AttributeMap    = "map"
	AttributeAny    = "any"
)

// MergeAttributeTypes merges the declared types of several Targets' rows
// into the types of one snapshot: an attribute keeps its type only when
// every Target that declares it declares the same type, other than any. A
// nil set (a Profile without attributes, or rows of a collector that sent
// no types) declares nothing. The values of a row always have the types
// its Target's Profile declared when it was extracted (the collector
// enforces them); a sink still checks them against the merged type.
func MergeAttributeTypes(sets ...AttributeTypes) AttributeTypes {
	out := AttributeTypes{}
	conflict := map[string]bool{}
	for _, s := range sets {
		for name, t := range s {
			switch prev, seen := out[name]; {
			case conflict[name]:
			case t == "" || t == AttributeAny || seen && prev != t:
				delete(out, name)
				conflict[name] = true
			default:
				out[name] = t
			}
		}
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// maxExactFloat is 2^53: from it on, integers are not all exact
// as float64.
const maxExactFloat = 1 << 53

// Unmarshal decodes JSON b into v, a *SnapshotEvent, *Envelope, *Delta or
// *[]Row, as json.Unmarshal does, except that an integer attribute value
// (at any depth) of 2^53 or more in magnitude that fits int64 is an int64,
// not the nearest float64: a Profile int keeps its exact value on its way
// to a sink. Every other number is a float64, as json.Unmarshal gives.
// Exporters decode rows with it.
func Unmarshal(b []byte, v any) error {
	if !mayHoldLargeInteger(b) {
		return json.Unmarshal(b, v)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	if err := dec.Decode(v); err != nil {
		return err
	}
	if _, err := dec.Token(); err != io.EOF {
		return errors.New("invalid character after top-level value")
	}
	var rows [][]Row
	switch v := v.(type) {
	case *SnapshotEvent:
		if v.Envelope != nil {
			rows = append(rows, v.Envelope.Items)
		}
		if v.Delta != nil {
			rows = append(rows, v.Delta.Upserts)
		}
	case *Envelope:
		rows = append(rows, v.Items)
	case *Delta:
		rows = append(rows, v.Upserts)
	case *[]Row:
		rows = append(rows, *v)
	default:
		return fmt.Errorf("busv1.Unmarshal cannot decode a %T", v)
	}
	for _, rs := range rows {
		for i := range rs {
			for k, a := range rs[i].Attributes {
				n, err := preciseNumbers(a)
				if err != nil {
					return fmt.Errorf("row %s attribute %s: %w", rs[i].UID, k, err)
				}
				rs[i].Attributes[k] = n
			}
		}
	}
	return nil
}

// mayHoldLargeInteger reports whether b holds 16 digits in a row, which
// every integer of 2^53 or more in magnitude has: JSON without is decoded
// by json.Unmarshal alone (a uid or a digest may have such a run, and then
// takes the slower path for nothing).
func mayHoldLargeInteger(b []byte) bool {
	run := 0
	for _, c := range b {
		if c >= '0' && c <= '9' {
			if run++; run == 16 {
				return true
			}
		} else {
			run = 0
		}
	}
	return false
}

// preciseNumbers replaces every json.Number in v by a float64, or by an
// int64 when it is an integer float64 cannot hold exactly.
func preciseNumbers(v any) (any, error) {
	var err error
	switch v := v.(type) {
	case json.Number:
		return numberValue(string(v))
	case map[string]any:
		for k, e := range v {
			if v[k], err = preciseNumbers(e); err != nil {
				return nil, err
			}
		}
	case []any:
		for i, e := range v {
			if v[i], err = preciseNumbers(e); err != nil {
				return nil, err
			}
		}
	}
	return v, nil
}

func numberValue(s string) (any, error) {
	f, err := strconv.ParseFloat(s, 64)
	if err != nil {
		// as encoding/json: a number out of float64's range is an error
		return nil, fmt.Errorf("number %s: %w", s, err)
	}
	if math.Abs(f) >= maxExactFloat {
		if i, err := strconv.ParseInt(s, 10, 64); err == nil {
			return i, nil
		}
	}
	return f, nil
}
