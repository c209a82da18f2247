package informers

import (
	"bytes"
	"encoding/json/jsontext"
	"errors"
	"fmt"
	"io"
	"strings"
	"sync"

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

// decoders are JSON decoders to reuse: a new one allocates its buffers.
var decoders = sync.Pool{New: func() any { return new(jsontext.Decoder) }}

// newDecoder returns a pooled decoder of data that reads JSON as
// apimachinery does: duplicate names are allowed (the last one wins) and
// invalid UTF-8 becomes U+FFFD. Put it back when done.
func newDecoder(data []byte) *jsontext.Decoder {
	dec := decoders.Get().(*jsontext.Decoder)
	dec.Reset(bytes.NewReader(data), jsontext.AllowDuplicateNames(true), jsontext.AllowInvalidUTF8(true))
	return dec
}

// decodeWatchEvent reads {"type": ..., "object": ...}, keeping the object's
// bytes for the object decoder.
func decodeWatchEvent(data []byte, ev *metav1.WatchEvent) error {
	dec := newDecoder(data)
	defer decoders.Put(dec)
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
	defer decoders.Put(dec)
	if tok, err := dec.ReadToken(); err != nil || tok.Kind() != '{' {
		return nil, fmt.Errorf("decode object: not a JSON object (%v)", err)
	}
	t := &topLevel{content: map[string]any{}}
	for dec.PeekKind() != '}' {
		if err := d.member(dec, t); err != nil {
			return nil, fmt.Errorf("decode object: %w", err)
		}
	}
	return d.finish(t)
}

// topLevel is what decode read of an object so far.
type topLevel struct {
	apiVersion, kind string
	content          map[string]any // members other than items
	items            []*Object
	list             bool
	blind            bool // some member was decoded whole before the kind was known
}

// member reads one member of the top level. The API server writes kind and
// apiVersion before the other members of an object (typed objects list
// them first; unstructured ones sort their keys), so the others are
// decoded knowing what the object is; a member that comes first is decoded
// whole and pruned afterwards.
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
		t.content[name] = v
		if s, ok := v.(string); ok && name == "kind" {
			t.kind = s
		} else if ok && name == "apiVersion" {
			t.apiVersion = s
		}
		return nil
	}
	return d.field(dec, t.content, name)
}

// field reads the member name of an object as the Targets need it.
func (d *decoder) field(dec *jsontext.Decoder, content map[string]any, name string) error {
	keep, skip := d.keep.Child(name), d.skip.Child(name)
	if (d.keep != nil && keep == nil) || (skip != nil && skip.Whole()) {
		return dec.SkipValue()
	}
	v, err := extract.DecodeJSON(dec, keep, skip)
	if err != nil {
		return err
	}
	content[name] = v
	return nil
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
		content := map[string]any{}
		for dec.PeekKind() != '}' {
			tok, err := dec.ReadToken()
			if err != nil {
				return err
			}
			if err := d.field(dec, content, tok.String()); err != nil {
				return err
			}
		}
		if _, err := dec.ReadToken(); err != nil { // '}'
			return err
		}
		t.items = append(t.items, compactOwned(content, d.strip))
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
		if md, ok := t.content["metadata"].(map[string]any); ok {
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
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(t.content, s); err != nil {
			return nil, fmt.Errorf("decode status: %w", err)
		}
		return s, nil
	}
	content := t.content
	if t.blind && d.keep != nil {
		content = extract.Prune(content, d.keep)
	}
	if t.blind && d.skip != nil {
		if md, ok := content["metadata"].(map[string]any); ok {
			delete(md, managedFieldsPath[1])
		}
	}
	return compactOwned(content, d.strip), nil
}

// jsonFramer splits a watch stream into its JSON events.
var jsonFramer = jsonserializer.Framer
