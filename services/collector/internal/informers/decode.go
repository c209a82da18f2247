package informers

import (
	"bytes"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"io"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	jsonserializer "k8s.io/apimachinery/pkg/runtime/serializer/json"

	"kollect.dev/kollect/pkg/extract"
)

// decoder decodes the API server's JSON responses and watch events for one
// informer straight into compact Objects: one pass over the bytes that
// builds only the fields the Targets read (what the transform would keep)
// and merely scans the rest (managedFields, status, every other field).
// Lists become an ObjectList, errors a metav1.Status.
type decoder struct {
	keep  *extract.FieldSet // nil: the whole object
	skip  *extract.FieldSet // dropped even when the whole object is kept
	strip func(md map[string]any)
}

// initialEventsEnd is the annotation of the bookmark that ends a watch
// list's initial events; the reflector reads it, so it is always kept.
var initialEventsEnd = []string{"metadata", "annotations", metav1.InitialEventsAnnotationKey}

// decoder returns the decoder of r's informers.
func (r Requirement) decoder() *decoder {
	d := &decoder{strip: r.strip()}
	if !r.Whole {
		d.keep = r.keepFields()
		d.keep.Insert(initialEventsEnd...)
	}
	if r.dropManaged() {
		d.skip = extract.NewFieldSet(managedFieldsPath)
	}
	return d
}

var _ runtime.Serializer = (*decoder)(nil)

// Identifier identifies the decoder among client-go's serializers.
func (d *decoder) Identifier() runtime.Identifier { return "kollect-collector-json" }

// Encode is not supported: informers only read.
func (d *decoder) Encode(runtime.Object, io.Writer) error {
	return errors.New("the collector's informer client does not encode objects")
}

// Decode decodes one object, list or watch event.
func (d *decoder) Decode(data []byte, defaults *schema.GroupVersionKind, into runtime.Object) (runtime.Object, *schema.GroupVersionKind, error) {
	if ev, ok := into.(*metav1.WatchEvent); ok {
		return ev, nil, decodeWatchEvent(data, ev)
	}
	if into != nil || (defaults != nil && defaults.Kind == "Status") {
		// An error response: client-go asks for a Status.
		return jsonserializer.NewSerializerWithOptions(jsonserializer.DefaultMetaFactory, statusScheme, statusScheme, jsonserializer.SerializerOptions{}).
			Decode(data, defaults, into)
	}
	obj, err := d.decode(data)
	if err != nil {
		return nil, nil, err
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	return obj, &gvk, nil
}

var statusScheme = func() *runtime.Scheme {
	s := runtime.NewScheme()
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	return s
}()

// decodeWatchEvent reads {"type": ..., "object": ...}, keeping the object's
// bytes for the object decoder.
func decodeWatchEvent(data []byte, ev *metav1.WatchEvent) error {
	dec := newDecoder(data)
	defer putDecoder(dec)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return fmt.Errorf("decode watch event: not a JSON object (%v)", err)
	}
	for dec.PeekKind() != '}' {
		name, err := dec.ReadToken()
		if err != nil {
			return fmt.Errorf("decode watch event: %w", err)
		}
		switch name.String() {
		case "type":
			tok, err := dec.ReadToken()
			if err != nil || tok.Kind() != '"' {
				return fmt.Errorf("decode watch event: type is not a string (%v)", err)
			}
			ev.Type = tok.String()
		case "object":
			v, err := dec.ReadValue()
			if err != nil {
				return fmt.Errorf("decode watch event: %w", err)
			}
			ev.Object.Raw = bytes.Clone(v)
		default:
			if err := dec.SkipValue(); err != nil {
				return fmt.Errorf("decode watch event: %w", err)
			}
		}
	}
	return nil
}

// decode reads one JSON object: a list when it has items, a Status, or an
// object to cache.
func (d *decoder) decode(data []byte) (runtime.Object, error) {
	dec := newDecoder(data)
	defer putDecoder(dec)
	return d.read(dec)
}

// read reads the next JSON object of dec: a list when it has items, a
// Status, or an object to cache.
func (d *decoder) read(dec *jsontext.Decoder) (runtime.Object, error) {
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("decode object: not a JSON object (%v)", err)
	}
	t := &topLevel{generic: map[string]any{}}
	defer t.release()
	for dec.PeekKind() != '}' {
		if err := d.member(dec, t); err != nil {
			return nil, fmt.Errorf("decode object: %w", err)
		}
	}
	if _, err := dec.ReadToken(); err != nil { // '}'
		return nil, fmt.Errorf("decode object: %w", err)
	}
	return d.finish(t)
}

// topLevel is what decode read of an object so far.
type topLevel struct {
	apiVersion, kind string
	generic          map[string]any // members decoded whole
	obj              *objectState   // the members of an object, read as the Targets need them
	items            []*Object
	list             bool
	blind            bool // some member was decoded whole before the kind was known
}

func (t *topLevel) release() {
	if t.obj != nil {
		t.obj.release()
	}
}

// objectState is an object being read: its identity members decoded, the
// others copied as JSON.
type objectState struct {
	top map[string]any // apiVersion, kind, metadata
	w   *restWriter
}

func newObjectState() *objectState {
	return &objectState{top: make(map[string]any, 3), w: newRestWriter()}
}

// build returns the Object read; the state is released.
func (s *objectState) build(strip func(md map[string]any)) (*Object, error) {
	o := &Object{}
	md := o.takeTop(s.top, strip)
	for k, v := range s.top { // an apiVersion or kind that is not a string
		if err := s.w.value(k, v); err != nil {
			return nil, fmt.Errorf("encode cached object %s: %w", o.key(), err)
		}
	}
	w := s.w
	s.w = nil
	return o.finish(w, md)
}

func (s *objectState) release() {
	if s.w != nil {
		_, _ = s.w.done()
		s.w = nil
	}
}

// member reads one member of the top level. The API server writes kind and
// apiVersion before the other members of an object (typed objects list
// them first; unstructured ones sort their keys), so the others are read
// knowing what the object is; a member that comes first is decoded whole
// and pruned afterwards.
func (d *decoder) member(dec *jsontext.Decoder, t *topLevel) error {
	tok, err := dec.ReadToken()
	if err != nil {
		return err
	}
	name := tok.String()
	switch {
	case name == "items" && dec.PeekKind() == '[':
		t.list = true
		return d.items(dec, t)
	case name == "apiVersion" || name == "kind" || t.kind == "" || t.kind == "Status" || t.list || strings.HasSuffix(t.kind, "List"):
		t.blind = t.blind || (t.kind == "" && name != "apiVersion" && name != "kind")
		v, err := extract.DecodeJSON(dec, nil, nil)
		if err != nil {
			return err
		}
		t.generic[name] = v
		if s, ok := v.(string); ok && name == "kind" {
			t.kind = s
		} else if ok && name == "apiVersion" {
			t.apiVersion = s
		}
		return nil
	}
	if t.obj == nil {
		t.obj = newObjectState()
	}
	return d.field(dec, t.obj, name)
}

// field reads the member name of an object as the Targets need it: the
// identity members decoded, the others copied as JSON, what no Target
// reads skipped.
func (d *decoder) field(dec *jsontext.Decoder, s *objectState, name string) error {
	keep, skip := d.keep.Child(name), d.skip.Child(name)
	if (d.keep != nil && keep == nil) || (skip != nil && skip.Whole()) {
		return dec.SkipValue()
	}
	if name == "apiVersion" || name == "kind" || name == "metadata" {
		v, err := extract.DecodeJSON(dec, keep, skip)
		if err != nil {
			return err
		}
		s.top[name] = v
		return nil
	}
	if err := s.w.name(name); err != nil {
		return err
	}
	return extract.CopyJSON(dec, s.w.enc, keep, skip)
}

// items reads the items of a list as Objects.
func (d *decoder) items(dec *jsontext.Decoder, t *topLevel) error {
	if _, err := dec.ReadToken(); err != nil { // '['
		return err
	}
	for dec.PeekKind() != ']' {
		if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
			return fmt.Errorf("an item of the list is not a JSON object (%v)", err)
		}
		s := newObjectState()
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err == nil {
				err = d.field(dec, s, tok.String())
			}
			if err != nil {
				s.release()
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil { // '}'
			s.release()
			return err
		}
		o, err := s.build(d.strip)
		if err != nil {
			return err
		}
		t.items = append(t.items, o)
	}
	_, err := dec.ReadToken() // ']'
	return err
}

// finish builds what decode read.
func (d *decoder) finish(t *topLevel) (runtime.Object, error) {
	switch {
	case t.list:
		l := &ObjectList{Items: t.items}
		l.APIVersion, l.Kind = t.apiVersion, t.kind
		if md, ok := t.generic["metadata"].(map[string]any); ok {
			if err := runtime.DefaultUnstructuredConverter.FromUnstructured(md, &l.ListMeta); err != nil {
				return nil, fmt.Errorf("decode list metadata: %w", err)
			}
		}
		itemKind := strings.TrimSuffix(t.kind, "List")
		for _, o := range l.Items {
			if o.has&(hasAPIVersion|hasKind) == 0 {
				o.SetGroupVersionKind(schema.FromAPIVersionAndKind(t.apiVersion, itemKind))
			}
		}
		return l, nil
	case t.kind == "Status":
		s := &metav1.Status{}
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(t.generic, s); err != nil {
			return nil, fmt.Errorf("decode status: %w", err)
		}
		return s, nil
	}
	gen := t.generic
	if t.blind && d.keep != nil {
		gen = extract.Prune(gen, d.keep)
	}
	if t.obj == nil {
		t.obj = newObjectState()
	}
	for k, v := range gen {
		switch k {
		case "metadata":
			if md, ok := v.(map[string]any); ok && t.blind && d.skip != nil {
				delete(md, managedFieldsPath[1])
			}
			t.obj.top[k] = v
		case "apiVersion", "kind":
			t.obj.top[k] = v
		default:
			if err := t.obj.w.value(k, v); err != nil {
				return nil, fmt.Errorf("decode object: %w", err)
			}
		}
	}
	return t.obj.build(d.strip)
}

// jsonFramer splits a watch stream into its JSON events.
var jsonFramer = jsonserializer.Framer
