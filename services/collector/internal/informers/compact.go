package informers

import (
	"fmt"
	"maps"
	"slices"
	"strings"
	"unique"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"
)

// Object is the compact form in which the informer caches hold an object:
// its identity as strings, its labels as sorted pairs with interned keys,
// and every other field that was kept as JSON, as the API server sent it
// (the decoder copies it without building it). A pruned Deployment is a
// fifth of its size as nested maps. It implements metav1.Object and
// runtime.Object for the cache; Unstructured rebuilds the pruned object
// that selection and extraction read. Cached objects are never modified.
type Object struct {
	apiVersion, kind unique.Handle[string]
	namespace        unique.Handle[string]
	name, uid, rv    string
	labels           []label
	rest             []byte // the other fields, a JSON object; nil when none
	has              fields // which of the fields above the object had
}

// label is one label; keys repeat across objects and are interned.
type label struct {
	key   unique.Handle[string]
	value string
}

// fields records which identity fields an object had, so that rebuilding
// it adds none it did not have.
type fields uint8

const (
	hasAPIVersion fields = 1 << iota
	hasKind
	hasMetadata
	hasName
	hasNamespace
	hasUID
	hasResourceVersion
	hasLabels
)

// compact returns content as an Object; strip, when set, edits a copy of
// its metadata first. content is not modified.
func compact(content map[string]any, strip func(md map[string]any)) (*Object, error) {
	rest := maps.Clone(content)
	if md, ok := rest["metadata"].(map[string]any); ok {
		rest["metadata"] = maps.Clone(md)
	}
	return compactOwned(rest, strip)
}

// compactOwned is compact of content that nothing else holds: it takes
// its top level and metadata maps apart.
func compactOwned(rest map[string]any, strip func(md map[string]any)) (*Object, error) {
	o := &Object{}
	md := o.takeTop(rest, strip)
	w := newRestWriter()
	for k, v := range rest {
		if err := w.value(k, v); err != nil {
			_, _ = w.done()
			return nil, fmt.Errorf("encode cached object %s: %w", o.key(), err)
		}
	}
	return o.finish(w, md)
}

// takeTop moves apiVersion, kind and metadata out of rest, and the
// identity fields out of metadata (after strip edited it); it returns what
// is left of metadata, nil when none.
func (o *Object) takeTop(rest map[string]any, strip func(md map[string]any)) map[string]any {
	if s, ok := rest["apiVersion"].(string); ok {
		o.apiVersion, o.has = unique.Make(s), o.has|hasAPIVersion
		delete(rest, "apiVersion")
	}
	if s, ok := rest["kind"].(string); ok {
		o.kind, o.has = unique.Make(s), o.has|hasKind
		delete(rest, "kind")
	}
	md, ok := rest["metadata"].(map[string]any)
	if !ok {
		return nil
	}
	delete(rest, "metadata")
	o.takeMetadata(md, strip)
	return md
}

// finish writes what is left of metadata into w and keeps what w wrote.
func (o *Object) finish(w *restWriter, md map[string]any) (*Object, error) {
	if len(md) > 0 {
		if err := w.value("metadata", md); err != nil {
			_, _ = w.done()
			return nil, fmt.Errorf("encode cached object %s: %w", o.key(), err)
		}
	}
	rest, err := w.done()
	if err != nil {
		return nil, fmt.Errorf("encode cached object %s: %w", o.key(), err)
	}
	o.rest = rest
	return o, nil
}

// takeMetadata edits md with strip (when set) and moves the identity
// fields and labels out of it.
func (o *Object) takeMetadata(md map[string]any, strip func(md map[string]any)) {
	if strip != nil {
		strip(md)
	}
	o.has |= hasMetadata
	take := func(name string, bit fields) (string, bool) {
		s, ok := md[name].(string)
		if ok {
			o.has |= bit
			delete(md, name)
		}
		return s, ok
	}
	o.name, _ = take("name", hasName)
	if ns, ok := take("namespace", hasNamespace); ok {
		o.namespace = unique.Make(ns)
	}
	o.uid, _ = take("uid", hasUID)
	o.rv, _ = take("resourceVersion", hasResourceVersion)
	if l, ok := md["labels"].(map[string]any); ok {
		if labels, ok := labelPairs(l); ok {
			o.labels, o.has = labels, o.has|hasLabels
			delete(md, "labels")
		}
	}
}

// labelPairs returns m sorted by key, unless some value is not a string.
func labelPairs(m map[string]any) ([]label, bool) {
	out := make([]label, 0, len(m))
	for k, v := range m {
		s, ok := v.(string)
		if !ok {
			return nil, false
		}
		out = append(out, label{key: unique.Make(k), value: s})
	}
	slices.SortFunc(out, func(a, b label) int { return strings.Compare(a.key.Value(), b.key.Value()) })
	return out, true
}

// Unstructured rebuilds the object as it was pruned: the same fields with
// the same values (JSON numbers decode to int64 or float64, as client-go
// decodes them).
func (o *Object) Unstructured() (*unstructured.Unstructured, error) {
	content := map[string]any{}
	if len(o.rest) > 0 {
		var err error
		if content, err = decodeRest(o.rest); err != nil {
			return nil, fmt.Errorf("decode cached object %s: %w", o.key(), err)
		}
	}
	if o.has&hasAPIVersion != 0 {
		content["apiVersion"] = o.apiVersion.Value()
	}
	if o.has&hasKind != 0 {
		content["kind"] = o.kind.Value()
	}
	if o.has&hasMetadata == 0 {
		return &unstructured.Unstructured{Object: content}, nil
	}
	md, _ := content["metadata"].(map[string]any)
	if md == nil {
		md = make(map[string]any, 5)
		content["metadata"] = md
	}
	set := func(bit fields, name, v string) {
		if o.has&bit != 0 {
			md[name] = v
		}
	}
	set(hasName, "name", o.name)
	set(hasNamespace, "namespace", o.GetNamespace())
	set(hasUID, "uid", o.uid)
	set(hasResourceVersion, "resourceVersion", o.rv)
	if o.has&hasLabels != 0 {
		l := make(map[string]any, len(o.labels))
		for _, p := range o.labels {
			l[p.key.Value()] = p.value
		}
		md["labels"] = l
	}
	return &unstructured.Unstructured{Object: content}, nil
}

// key is the object's cache key, for messages.
func (o *Object) key() string { return cache.MetaObjectToName(o).String() }
