package extract

import (
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"
)

// parsePointer splits an RFC 6901 JSON pointer into unescaped reference tokens.
func parsePointer(p string) ([]string, error) {
	if p == "" {
		return nil, errors.New("must not be empty: the empty pointer is the whole object")
	}
	if !strings.HasPrefix(p, "/") {
		return nil, errors.New(`must start with "/" (RFC 6901)`)
	}
	tokens := strings.Split(p[1:], "/")
	for i, t := range tokens {
		for j := 0; j < len(t); j++ {
			if t[j] == '~' && (j+1 == len(t) || (t[j+1] != '0' && t[j+1] != '1')) {
				return nil, fmt.Errorf(`token %d: "~" must be followed by 0 or 1 (RFC 6901)`, i)
			}
		}
		tokens[i] = strings.ReplaceAll(strings.ReplaceAll(t, "~1", "/"), "~0", "~")
	}
	return tokens, nil
}

// removePointer returns v without the value the pointer names, copying the maps and lists on
// the way. A pointer that names nothing changes nothing.
func removePointer(v any, tokens []string) (any, bool) {
	last := len(tokens) == 1
	switch t := v.(type) {
	case map[string]any:
		child, ok := t[tokens[0]]
		if !ok {
			return v, false
		}
		if last {
			out := maps.Clone(t)
			delete(out, tokens[0])
			return out, true
		}
		nc, changed := removePointer(child, tokens[1:])
		if !changed {
			return v, false
		}
		out := maps.Clone(t)
		out[tokens[0]] = nc
		return out, true
	case []any:
		i, err := strconv.Atoi(tokens[0])
		if err != nil || i < 0 || i >= len(t) || (len(tokens[0]) > 1 && tokens[0][0] == '0') {
			return v, false
		}
		return editIndex(t, i, func(e any) (any, bool, bool) {
			if last {
				return nil, false, true
			}
			ne, changed := removePointer(e, tokens[1:])
			return ne, true, changed
		})
	}
	return v, false
}

// editIndex applies f to l[i], copying l when it changes.
func editIndex(l []any, i int, f func(e any) (any, bool, bool)) (any, bool) {
	ne, keep, changed := f(l[i])
	if !changed {
		return l, false
	}
	out := make([]any, 0, len(l))
	out = append(out, l[:i]...)
	if keep {
		out = append(out, ne)
	}
	return append(out, l[i+1:]...), true
}

// removeMatches returns v without every value the compiled path matches, copying what it
// changes. Filters that cannot compare an element leave that element alone.
func removeMatches(v any, steps []step) (any, bool) {
	s, rest := &steps[0], steps[1:]
	// next removes the matched value e (last step) or continues the path inside it.
	next := func(e any) (any, bool, bool) {
		if len(rest) == 0 {
			return nil, false, true
		}
		ne, changed := removeMatches(e, rest)
		return ne, true, changed
	}
	switch s.kind {
	case stepField:
		return editKey(v, s.name, next)
	case stepIndex:
		l, ok := v.([]any)
		if !ok {
			return v, false
		}
		i := s.index
		if i < 0 {
			i += len(l)
		}
		if i < 0 || i >= len(l) {
			return v, false
		}
		return editIndex(l, i, next)
	case stepEach, stepAll, stepFilter:
		return editEach(v, s, next)
	case stepDescend:
		return removeDescend(v, s.name, next)
	}
	return v, false
}

// editKey applies f to m[key] when present.
func editKey(v any, key string, f func(e any) (any, bool, bool)) (any, bool) {
	m, ok := v.(map[string]any)
	if !ok {
		return v, false
	}
	child, ok := m[key]
	if !ok {
		return v, false
	}
	ne, keep, changed := f(child)
	if !changed {
		return v, false
	}
	out := maps.Clone(m)
	if keep {
		out[key] = ne
	} else {
		delete(out, key)
	}
	return out, true
}

func editEach(v any, s *step, f func(e any) (any, bool, bool)) (any, bool) {
	switch t := v.(type) {
	case []any:
		return editList(t, func(e any) (any, bool, bool) {
			if s.kind == stepFilter {
				if match, err := s.filter.match(e); err != nil || !match {
					return e, true, false
				}
			}
			return f(e)
		})
	case map[string]any:
		if s.kind != stepAll {
			return v, false
		}
		var out map[string]any
		for k, e := range t {
			ne, keep, changed := f(e)
			if !changed {
				continue
			}
			if out == nil {
				out = maps.Clone(t)
			}
			if keep {
				out[k] = ne
			} else {
				delete(out, k)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}

// removeDescend applies f to the value of every key called name at any depth.
func removeDescend(v any, name string, f func(e any) (any, bool, bool)) (any, bool) {
	switch t := v.(type) {
	case []any:
		return editList(t, func(e any) (any, bool, bool) {
			ne, changed := removeDescend(e, name, f)
			return ne, true, changed
		})
	case map[string]any:
		var out map[string]any
		for k, e := range t {
			ne, changed := removeDescend(e, name, f)
			keep := true
			if k == name {
				var ch bool
				if ne, keep, ch = f(ne); ch {
					changed = true
				}
			}
			if !changed {
				continue
			}
			if out == nil {
				out = maps.Clone(t)
			}
			if keep {
				out[k] = ne
			} else {
				delete(out, k)
			}
		}
		if out == nil {
			return v, false
		}
		return out, true
	}
	return v, false
}
