package v1alpha1

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	kjson "sigs.k8s.io/json"
)

// bindingEncoding records the JSON form a binding was decoded from. A binding
// built in Go has the zero value and encodes as a plain name whenever it
// carries nothing but a name.
type bindingEncoding struct {
	// object is true when the entry was written as an object.
	object bool
	// name is true when the entry was written as a plain name.
	name bool
	// raw is the entry verbatim when it is not a valid binding, so that it
	// re-encodes unchanged.
	raw string
	// err says why raw is not a valid binding.
	err string
}

// DecodeError says why the entry, as stored, is not a sink binding: neither a
// string nor an object, or an object with an unknown field. Nil for a valid
// entry. The API server cannot reject these (see SinkBinding); control does.
func (b SinkBinding) DecodeError() error { return b.enc.error() }

// DecodeError says why the entry, as stored, is not a sink binding; see
// SinkBinding.DecodeError.
func (b ClusterSinkBinding) DecodeError() error { return b.enc.error() }

// MarshalJSON encodes the binding as a plain name when it was written so (or
// built in Go) and has no overrides, and as an object otherwise.
func (b SinkBinding) MarshalJSON() ([]byte, error) {
	type plain SinkBinding
	asName := b.ExportMinInterval == nil && b.MaxExportBytes == nil
	return b.enc.encode(asName, b.Name, plain(b))
}

// UnmarshalJSON accepts a name or an object. It never fails: an entry of
// another shape is kept verbatim and reported by DecodeError, so that one bad
// object cannot break the decoding of a whole list in a controller's cache.
func (b *SinkBinding) UnmarshalJSON(data []byte) error {
	type plain SinkBinding
	var v plain
	enc := decodeBinding(data, &v.Name, &v, "sink")
	*b = SinkBinding(v)
	b.enc = enc
	return nil
}

// MarshalJSON encodes the binding as a plain name when it was written so (or
// built in Go) and has no namespace or overrides, and as an object otherwise.
func (b ClusterSinkBinding) MarshalJSON() ([]byte, error) {
	type plain ClusterSinkBinding
	asName := b.Namespace == "" && b.ExportMinInterval == nil && b.MaxExportBytes == nil
	return b.enc.encode(asName, b.Name, plain(b))
}

// UnmarshalJSON accepts a name or an object; see SinkBinding.UnmarshalJSON.
func (b *ClusterSinkBinding) UnmarshalJSON(data []byte) error {
	type plain ClusterSinkBinding
	var v plain
	enc := decodeBinding(data, &v.Name, &v, "sink")
	*b = ClusterSinkBinding(v)
	b.enc = enc
	return nil
}

func (e bindingEncoding) error() error {
	if e.err == "" {
		return nil
	}
	return errors.New(e.err)
}

func (e bindingEncoding) encode(asName bool, name string, object any) ([]byte, error) {
	switch {
	case e.raw != "":
		return []byte(e.raw), nil
	case asName && !e.object:
		return json.Marshal(name)
	default:
		return json.Marshal(object)
	}
}

// decodeBinding decodes data into name (a JSON string) or object (a JSON
// object, decoded case-sensitively and strictly, as the API machinery does).
// what names the referenced object in messages ("sink", "profile").
func decodeBinding(data []byte, name *string, object any, what string) bindingEncoding {
	data = bytes.TrimSpace(data)
	invalid := func(why string) bindingEncoding {
		return bindingEncoding{raw: string(data), err: why}
	}
	if len(data) == 0 {
		return invalid(fmt.Sprintf("must be a %s name or an object with a name", what))
	}
	switch data[0] {
	case '"':
		if err := json.Unmarshal(data, name); err != nil {
			return invalid(err.Error())
		}
		return bindingEncoding{name: true}
	case '{':
		strict, err := kjson.UnmarshalStrict(data, object, kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
		if err != nil {
			return invalid(err.Error())
		}
		if len(strict) > 0 {
			return invalid(errors.Join(strict...).Error())
		}
		return bindingEncoding{object: true}
	default:
		return invalid(fmt.Sprintf("must be a %s name or an object with a name, not %s", what, data))
	}
}
