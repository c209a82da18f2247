package informers

import (
	"maps"
	"slices"
	"strings"
	"unique"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// Object is the compact form in which the informer caches hold an object:
// its identity as strings, its labels as sorted pairs with interned keys,
// and every other field the transform kept as the unstructured content the
// decoder built: extraction reads it as it is, nothing is encoded or
// decoded again per event. It implements metav1.Object and runtime.Object
// for the cache; Unstructured returns the pruned object that selection and
// extraction read. Cached objects, and the content they share with the
// objects Unstructured returns, are never modified.
type Object struct {
	apiVersion, kind unique.Handle[string]
	namespace        unique.Handle[string]
	name, uid, rv    string
	labels           []label
	rest             map[string]any // the other fields; nil when none
	has              fields         // which of the fields above the object had
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
func compact(content map[string]any, strip func(md map[string]any)) *Object {
	rest := maps.Clone(content)
	if md, ok := rest["metadata"].(map[string]any); ok {
		rest["metadata"] = maps.Clone(md)
	}
	return compactOwned(rest, strip)
}

// compactOwned is compact of content that nothing else holds: its top
// level and metadata maps become the Object's.
func compactOwned(rest map[string]any, strip func(md map[string]any)) *Object {
	o := &Object{}
	if s, ok := rest["apiVersion"].(string); ok {
		o.apiVersion, o.has = unique.Make(s), o.has|hasAPIVersion
		delete(rest, "apiVersion")
	}
	if s, ok := rest["kind"].(string); ok {
		o.kind, o.has = unique.Make(s), o.has|hasKind
		delete(rest, "kind")
	}
	if md, ok := rest["metadata"].(map[string]any); ok {
		if strip != nil {
			strip(md)
		}
		o.has |= hasMetadata
		o.takeMetadata(md)
		if len(md) == 0 {
			delete(rest, "metadata")
		} else {
			rest["metadata"] = md
		}
	}
	if len(rest) > 0 {
		o.rest = rest
	}
	return o
}

// takeMetadata moves the identity fields and labels out of md.
func (o *Object) takeMetadata(md map[string]any) {
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

// Unstructured returns the object as the transform pruned it: new top-level
// and metadata maps around the cached values, which the caller must not
// modify. It never fails; the error is there for callers that convert
// other cached types.
func (o *Object) Unstructured() (*unstructured.Unstructured, error) {
	content := make(map[string]any, len(o.rest)+2)
	maps.Copy(content, o.rest)
	if md, ok := content["metadata"].(map[string]any); ok {
		content["metadata"] = maps.Clone(md)
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
