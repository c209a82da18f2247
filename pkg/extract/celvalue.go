package extract

import (
	"encoding/base64"
	"fmt"
	"math"
	"time"

	"github.com/google/cel-go/common/types"
	"github.com/google/cel-go/common/types/ref"
	"github.com/google/cel-go/common/types/traits"
)

// celToNative converts a CEL result to the JSON-shaped values rows carry. Lists and maps that
// came straight from the object are returned as they are, without copying.
func celToNative(v ref.Val) (any, bool, error) {
	switch t := v.(type) {
	case types.Null:
		return nil, false, nil
	case *types.Optional:
		if !t.HasValue() {
			return nil, false, nil
		}
		return celToNative(t.GetValue())
	}
	out, err := celValue(v)
	return out, out != nil, err
}

func celValue(v ref.Val) (any, error) {
	switch t := v.(type) {
	case types.String:
		return string(t), nil
	case types.Int:
		return int64(t), nil
	case types.Uint:
		if uint64(t) > math.MaxInt64 {
			return nil, fmt.Errorf("CEL result: uint out of int64 range")
		}
		return int64(t), nil //nolint:gosec // G115: range checked just above
	case types.Double:
		return float64(t), nil
	case types.Bool:
		return bool(t), nil
	case types.Null:
		return nil, nil
	case types.Bytes:
		return base64.StdEncoding.EncodeToString(t), nil
	case types.Timestamp:
		return t.Time.UTC().Format(time.RFC3339Nano), nil
	case types.Duration:
		return t.Duration.String(), nil
	case *types.Optional:
		if !t.HasValue() {
			return nil, nil
		}
		return celValue(t.GetValue())
	case traits.Lister:
		if l, ok := t.Value().([]any); ok {
			return l, nil
		}
		return celList(t)
	case traits.Mapper:
		if m, ok := t.Value().(map[string]any); ok {
			return m, nil
		}
		return celMap(t)
	}
	return nil, fmt.Errorf("CEL result of type %s cannot be exported", v.Type())
}

func celList(l traits.Lister) (any, error) {
	n, _ := l.Size().(types.Int)
	out := make([]any, 0, int(n))
	for it := l.Iterator(); it.HasNext() == types.True; {
		e, err := celValue(it.Next())
		if err != nil {
			return nil, err
		}
		out = append(out, e)
	}
	return out, nil
}

func celMap(m traits.Mapper) (any, error) {
	n, _ := m.Size().(types.Int)
	out := make(map[string]any, int(n))
	for it := m.Iterator(); it.HasNext() == types.True; {
		k := it.Next()
		ks, ok := k.(types.String)
		if !ok {
			return nil, fmt.Errorf("CEL result: map key of type %s, want string", k.Type())
		}
		e, err := celValue(m.Get(k))
		if err != nil {
			return nil, err
		}
		out[string(ks)] = e
	}
	return out, nil
}
