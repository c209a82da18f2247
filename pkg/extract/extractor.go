package extract

import (
	"errors"
	"fmt"
	"sync"
)

// Extractor is a compiled Profile. It is immutable and safe for concurrent use.
type Extractor struct {
	attrs    []compiledAttr
	export   *resourceExport
	rules    *Rules
	view     *viewer // nil when only Helm attributes read the object
	fields   *FieldSet
	stateful bool      // some attribute is CEL or Helm and needs an evalState
	states   sync.Pool // *evalState, so an evaluation allocates no scratch space
}

// compiledAttr is one attribute with exactly one of native, fallback, cel or helm set.
type compiledAttr struct {
	name       string
	typ        Type
	optional   bool
	redactName bool // the attribute's own name is on the denylist
	multi      bool // always a list
	native     *jsonPath
	fallback   *fallbackPath
	cel        *celExpr
	helm       helmField
	viewFields *FieldSet // what a CEL attribute needs of the redacted view
}

// evalState is per-evaluation scratch: the CEL activation and the decoded Helm release.
type evalState struct {
	act  objectActivation
	helm helmCache
}

// AttributeError is an evaluation error on a required attribute. The message names the
// attribute and never quotes object values.
type AttributeError struct {
	// Attribute is the attribute's name.
	Attribute string
	// Err is what went wrong: a *TypeError, a CEL or Helm decoding error.
	Err error
}

// Error implements error.
func (e *AttributeError) Error() string {
	return fmt.Sprintf("attribute %q: %v", e.Attribute, e.Err)
}

// Unwrap returns Err.
func (e *AttributeError) Unwrap() error { return e.Err }

// Extract evaluates the Profile on obj (as in unstructured.Unstructured.Object) and returns the
// row's attributes: required attributes that are missing are present as nil, optional ones are
// omitted; with export mode Resource the embedded copy is under its "as" key.
//
// Values are redacted before any path sees them: JSONPath, CEL and the embedded copy evaluate
// on a redacted view of obj, so a redacted value selected in any way (index, filter, CEL
// function) yields the redaction marker or nothing, never the value; CEL and Helm results are
// redacted again by key. obj is never modified; the result may share unchanged maps and lists
// with it, so treat both as read-only. An evaluation or type error on a required attribute is
// returned as an *AttributeError and no attributes; on an optional attribute the key is
// omitted. Error messages never quote object values.
func (e *Extractor) Extract(obj map[string]any) (map[string]any, error) {
	view := obj
	if e.view != nil {
		view = e.view.apply(obj)
	}
	var st *evalState
	if e.stateful {
		st = e.state(view)
		defer e.release(st)
	}
	n := len(e.attrs)
	if e.export != nil {
		n++
	}
	out := make(map[string]any, n)
	for i := range e.attrs {
		a := &e.attrs[i]
		v, found, err := a.value(obj, view, st)
		if err == nil && found {
			v, err = a.enforce(v)
		}
		switch {
		case err != nil:
			// A timeout says nothing about the object: the caller retries
			// rather than publish a row without the attribute.
			if a.optional && !errors.Is(err, ErrCELTimeout) {
				continue
			}
			return nil, &AttributeError{Attribute: a.name, Err: err}
		case !found:
			if !a.optional {
				out[a.name] = nil
			}
			continue
		}
		switch {
		case a.redactName:
			v = Redacted(ReasonSensitiveKey)
		case a.cel != nil || a.helm != "":
			v, _ = e.rules.redact(v) // built by the expression or decoded from the release
		}
		out[a.name] = v
	}
	if x := e.export; x != nil {
		if e.rules.SensitiveKey(x.as) {
			out[x.as] = Redacted(ReasonSensitiveKey) // an attribute named like a secret
		} else {
			out[x.as] = x.build(view)
		}
	}
	return out, nil
}

func (e *Extractor) state(obj map[string]any) *evalState {
	st, _ := e.states.Get().(*evalState)
	if st == nil {
		st = &evalState{}
	}
	st.act.object = obj
	return st
}

func (e *Extractor) release(st *evalState) {
	st.act.object = nil
	if st.helm.done {
		st.helm = helmCache{} // drop the decoded release; untouched otherwise, so not rewritten
	}
	e.states.Put(st)
}

// value evaluates the attribute: paths and CEL on the redacted view, Helm on the object (it
// reads only the release, and its config is redacted by key afterwards).
func (a *compiledAttr) value(obj, view map[string]any, st *evalState) (any, bool, error) {
	switch {
	case a.native != nil && a.multi:
		l, ok := a.native.all(view)
		if l == nil && ok {
			l = []any{}
		}
		return l, ok, nil
	case a.native != nil:
		v, ok := a.native.single(view)
		return v, ok, nil
	case a.fallback != nil && a.multi:
		l, ok := a.fallback.all(view)
		return l, ok, nil
	case a.fallback != nil:
		v, ok := a.fallback.single(view)
		return v, ok, nil
	case a.cel != nil:
		return a.cel.eval(&st.act)
	default:
		return st.helm.value(obj, a.helm)
	}
}

// enforce checks the declared type. The redaction marker passes for every type: it stands for
// a value that was there.
func (a *compiledAttr) enforce(v any) (any, error) {
	if !a.multi {
		return a.typ.enforce(v)
	}
	if a.typ == TypeAny || a.typ == TypeList {
		return v, nil // every list is fine; do not re-box the slice
	}
	return a.typ.enforceEach(v.([]any))
}

// Fields reports the object paths the Profile reads (attributes and the embedded copy), for an
// informer transform; see Prune. Identity fields the collector needs itself are not included.
// The set is a copy the caller may extend.
func (e *Extractor) Fields() *FieldSet { return NewFieldSet(e.fields.Paths()...) }

// NeedsWholeObject reports whether the Profile may read any part of the object.
func (e *Extractor) NeedsWholeObject() bool { return e.fields.Whole() }
