package extract

import (
	"reflect"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// jsonAdapter converts the JSON shapes of unstructured objects to CEL values before falling
// back to the registry, whose generic path reflects on every list.
type jsonAdapter struct {
	*types.Registry
}

// NativeToValue implements types.Adapter.
func (a jsonAdapter) NativeToValue(v any) ref.Val {
	switch t := v.(type) {
	case string:
		return types.String(t)
	case int64:
		return types.Int(t)
	case float64:
		return types.Double(t)
	case bool:
		return types.Bool(t)
	case []any:
		return jsonList{adapter: a, list: t}
	case map[string]any:
		if reason, ok := markerReason(t); ok {
			return types.WrapErr(&redactedError{reason: reason})
		}
		return types.NewStringInterfaceMap(a, t)
	}
	return a.Registry.NativeToValue(v)
}

// redactedError is the CEL value of a redacted value: an error, so that every function of it
// (size, base64, comparisons, string functions) fails, and the attribute then yields the
// redaction marker instead.
type redactedError struct {
	reason string
}

// Error implements error.
func (e *redactedError) Error() string { return "redacted value" }

// jsonList is a CEL list over a []any of the object. Size and Get, what field access and
// size() use, read the slice directly; everything else delegates to cel-go's own list so the
// semantics stay cel-go's.
type jsonList struct {
	adapter types.Adapter
	list    []any
}

func (l jsonList) dyn() traits.Lister { return types.NewDynamicList(l.adapter, l.list) }

// Size implements traits.Sizer.
func (l jsonList) Size() ref.Val { return types.Int(len(l.list)) }

// Get implements traits.Indexer.
func (l jsonList) Get(index ref.Val) ref.Val {
	i, ok := index.(types.Int)
	if !ok || i < 0 || int64(i) >= int64(len(l.list)) {
		return l.dyn().Get(index) // cel-go's conversions and error values
	}
	return l.adapter.NativeToValue(l.list[i])
}

// Value implements ref.Val.
func (l jsonList) Value() any { return l.list }

// Type implements ref.Val.
func (l jsonList) Type() ref.Type { return types.ListType }

// Add implements traits.Adder.
func (l jsonList) Add(other ref.Val) ref.Val { return l.dyn().Add(other) }

// Contains implements traits.Container.
func (l jsonList) Contains(v ref.Val) ref.Val { return l.dyn().Contains(v) }

// Iterator implements traits.Iterable.
func (l jsonList) Iterator() traits.Iterator { return l.dyn().Iterator() }

// Equal implements ref.Val.
func (l jsonList) Equal(other ref.Val) ref.Val { return l.dyn().Equal(other) }

// ConvertToNative implements ref.Val.
func (l jsonList) ConvertToNative(t reflect.Type) (any, error) { return l.dyn().ConvertToNative(t) }

// ConvertToType implements ref.Val.
func (l jsonList) ConvertToType(t ref.Type) ref.Val { return l.dyn().ConvertToType(t) }

// IsZeroValue implements traits.Zeroer.
func (l jsonList) IsZeroValue() bool { return len(l.list) == 0 }
