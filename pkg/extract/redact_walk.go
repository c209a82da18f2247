package extract

import (
	"maps"
	"slices"
	"strings"
)

// argsKeys hold command lines: a value after a sensitive flag is redacted.
var argsKeys = []string{"args", "command"}

// entryNameKeys name the entry of a {name, value} (or {key, value}) pair: env vars,
// parameters, settings.
var entryNameKeys = []string{"name", "key"}

// guide is a FieldSet compiled for the walk: the keys read below a map, each with its own
// guide. A nil guide means everything below.
type guide struct {
	keys []string
	kids []*guide
}

func newGuide(f *FieldSet) *guide {
	if f == nil || f.whole {
		return nil
	}
	g := &guide{}
	for _, k := range slices.Sorted(maps.Keys(f.children)) {
		g.keys = append(g.keys, k)
		g.kids = append(g.kids, newGuide(f.children[k]))
	}
	return g
}

// walk redacts v, copying only what changes. g guides it to the parts a Profile reads; nil
// means everything under v.
func (r *Rules) walk(v any, g *guide) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		if _, ok := markerReason(t); ok {
			return v, false
		}
		if m, changed := r.walkMap(t, g); changed {
			return m, true
		}
	case []any:
		if l, changed := r.walkList(t, g, false); changed {
			return l, true
		}
	case string:
		if r.sensitiveValue(t) {
			return Redacted(ReasonSensitiveValue), true
		}
	}
	return v, false // the caller's interface value: no new allocation
}

func (r *Rules) walkMap(m map[string]any, g *guide) (map[string]any, bool) {
	var out map[string]any
	set := func(k string, v any) {
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = v
	}
	visit := func(k string, v any, sub *guide) {
		if reason := r.keyReason(k); reason != "" {
			if !isMarker(v) {
				set(k, Redacted(reason))
			}
			return
		}
		if l, ok := v.([]any); ok {
			if nl, changed := r.walkList(l, sub, isArgsKey(k)); changed {
				set(k, nl)
			}
			return
		}
		if nv, changed := r.walk(v, sub); changed {
			set(k, nv)
		}
	}
	if g == nil {
		for k, v := range m {
			visit(k, v, nil)
		}
	} else {
		for i, k := range g.keys {
			if v, ok := m[k]; ok {
				visit(k, v, g.kids[i])
			}
		}
	}
	if v, ok := m["value"]; ok && !isMarker(v) && r.sensitiveEntry(m) {
		set("value", Redacted(ReasonSensitiveKey))
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// sensitiveEntry reports whether m is a {name, value} entry with a sensitive name.
func (r *Rules) sensitiveEntry(m map[string]any) bool {
	for _, k := range entryNameKeys {
		if name, ok := m[k].(string); ok && r.names.match(name) {
			return true
		}
	}
	return false
}

func isArgsKey(k string) bool {
	for _, a := range argsKeys {
		if strings.EqualFold(k, a) {
			return true
		}
	}
	return false
}

// walkList redacts each element; in a command line (args) it also redacts "--flag=value"
// elements and the element after a lone "--flag" when the flag's name is sensitive.
func (r *Rules) walkList(l []any, g *guide, args bool) ([]any, bool) {
	var out []any // the copy, made at the first change
	next := false // the previous element was a sensitive flag without a value
	for i, e := range l {
		ne, changed := e, false
		if args {
			s, isString := e.(string)
			switch {
			case next:
				next = false
				ne, changed = Redacted(ReasonSensitiveKey), true
			case isString:
				withValue, alone := r.sensitiveFlag(s)
				if withValue {
					ne, changed = Redacted(ReasonSensitiveKey), true
				}
				next = alone
			}
		}
		if !changed {
			ne, changed = r.walk(e, g)
		}
		if changed && out == nil {
			out = make([]any, len(l))
			copy(out, l[:i])
		}
		if out != nil {
			out[i] = ne
		}
	}
	if out == nil {
		return l, false
	}
	return out, true
}

// sensitiveFlag reports whether s is "-name=value" or "--name=value" with a sensitive name
// (withValue), or a lone "-name" or "--name" with a sensitive name, whose value is the next
// element (alone). One-letter flags ("-p") are not matched: their meaning varies by program.
func (r *Rules) sensitiveFlag(s string) (withValue, alone bool) {
	if len(s) < 2 || s[0] != '-' {
		return false, false
	}
	name := trimDashes(s)
	if i := strings.IndexByte(name, '='); i >= 0 {
		return len(name[:i]) > 1 && r.names.match(name[:i]), false
	}
	return false, len(name) > 1 && r.names.match(name)
}

// editList applies f to every element: f returns the new element, whether to keep it and
// whether it changed. The list is copied only when something changed.
func editList(l []any, f func(e any) (ne any, keep, changed bool)) ([]any, bool) {
	var out []any
	for i, e := range l {
		ne, keep, changed := f(e)
		if !changed {
			if out != nil {
				out = append(out, e)
			}
			continue
		}
		if out == nil {
			out = make([]any, i, len(l))
			copy(out, l[:i])
		}
		if keep {
			out = append(out, ne)
		}
	}
	if out == nil {
		return l, false
	}
	return out, true
}
