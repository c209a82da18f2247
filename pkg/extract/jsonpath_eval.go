package extract

import (
	"maps"
	"slices"

	"k8s.io/client-go/third_party/forked/golang/template"
)

// The evaluator follows kubectl's JSONPath (client-go, missing keys allowed) so a path tested
// with `kubectl get -o jsonpath` means the same here: a missing key matches nothing; a step
// kubectl rejects (an index out of range, [*], an index or a filter on a value that is not a
// list, a filter comparing values of different kinds) makes the whole path match nothing.
// Deliberate differences: map wildcards and ".." visit keys in sorted order (kubectl's order is
// random), ".*" on a string matches nothing (kubectl yields its bytes), and [*] on an empty
// list does not cut short the remaining matches (a client-go bug).

// single evaluates a path made only of fields and indexes without allocating.
func (jp *jsonPath) single(v any) (any, bool) {
	for i := range jp.steps {
		s := &jp.steps[i]
		switch s.kind {
		case stepField:
			m, ok := v.(map[string]any)
			if !ok {
				return nil, false
			}
			if v, ok = m[s.name]; !ok {
				return nil, false
			}
		case stepIndex:
			l, ok := v.([]any)
			if !ok {
				return nil, false
			}
			n := s.index
			if n < 0 {
				n += len(l)
			}
			if n < 0 || n >= len(l) {
				return nil, false
			}
			v = l[n]
		}
	}
	return v, v != nil
}

// all evaluates a multi-valued path. ok is false when a step aborted the evaluation.
func (jp *jsonPath) all(v any) (out []any, ok bool) {
	return walk(v, jp.steps, nil)
}

func walk(v any, steps []step, out []any) ([]any, bool) {
	for i := range steps {
		s := &steps[i]
		switch s.kind {
		case stepField:
			m, ok := v.(map[string]any)
			if !ok {
				return out, true
			}
			if v, ok = m[s.name]; !ok {
				return out, true
			}
		case stepIndex:
			if v == nil {
				return out, true
			}
			l, ok := v.([]any)
			n := s.index
			if ok && n < 0 {
				n += len(l)
			}
			if !ok || n < 0 || n >= len(l) {
				return out, false
			}
			v = l[n]
		case stepEach:
			return walkEach(v, steps[i+1:], out)
		case stepAll:
			return walkAll(v, steps[i+1:], out)
		case stepDescend:
			return descend(v, s.name, steps[i+1:], out)
		case stepFilter:
			return walkFilter(v, s.filter, steps[i+1:], out)
		}
	}
	return append(out, v), true
}

func walkEach(v any, rest []step, out []any) ([]any, bool) {
	if v == nil {
		return out, true
	}
	l, ok := v.([]any)
	if !ok {
		return out, false
	}
	if out == nil {
		out = make([]any, 0, len(l)) // usually one match per element: one allocation
	}
	for _, e := range l {
		if out, ok = walk(e, rest, out); !ok {
			return out, false
		}
	}
	return out, true
}

func walkAll(v any, rest []step, out []any) ([]any, bool) {
	var ok bool
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if out, ok = walk(e, rest, out); !ok {
				return out, false
			}
		}
	case map[string]any:
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if out, ok = walk(t[k], rest, out); !ok {
				return out, false
			}
		}
	}
	return out, true
}

// descend visits v in pre-order (map keys sorted) and continues with rest at every value of a
// key called name.
func descend(v any, name string, rest []step, out []any) ([]any, bool) {
	var ok bool
	switch t := v.(type) {
	case []any:
		for _, e := range t {
			if out, ok = descend(e, name, rest, out); !ok {
				return out, false
			}
		}
	case map[string]any:
		if child, found := t[name]; found {
			if out, ok = walk(child, rest, out); !ok {
				return out, false
			}
		}
		for _, k := range slices.Sorted(maps.Keys(t)) {
			if out, ok = descend(t[k], name, rest, out); !ok {
				return out, false
			}
		}
	}
	return out, true
}

func walkFilter(v any, f *filter, rest []step, out []any) ([]any, bool) {
	l, ok := v.([]any)
	if !ok {
		return out, false
	}
	for _, e := range l {
		match, err := f.match(e)
		if err != nil {
			return out, false
		}
		if !match {
			continue
		}
		if out, ok = walk(e, rest, out); !ok {
			return out, false
		}
	}
	return out, true
}

// match reports whether element e passes the filter. An element without the compared path is
// skipped; comparing a null, a list or a map, or values of different kinds, is an error.
func (f *filter) match(e any) (bool, error) {
	v := e
	for _, name := range f.path {
		m, ok := v.(map[string]any)
		if !ok {
			return false, nil
		}
		if v, ok = m[name]; !ok {
			return false, nil
		}
	}
	if a, ok := v.(string); ok {
		if b, ok := f.literal.(string); ok {
			return (a == b) != f.negate, nil
		}
	}
	if isMarker(v) {
		return f.negate, nil // a redacted value equals no literal
	}
	eq, err := template.Equal(v, f.literal)
	return eq != f.negate, err
}
