package informers

import (
	"maps"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/cache"

	"kollect.dev/kollect/pkg/extract"
)

// Requirement is what the Targets of one GVK need from its informer.
type Requirement struct {
	// Whole is true when some Target may read any field of the object.
	Whole bool
	// Fields are the paths the Targets read (the union of their
	// extract.FieldSets); ignored when Whole.
	Fields *extract.FieldSet
	// Namespace restricts the informer to one namespace; "" watches all.
	// It is ignored for cluster-scoped kinds.
	Namespace string
}

// lastApplied is the annotation kubectl apply stores the whole object in.
const lastApplied = "kubectl.kubernetes.io/last-applied-configuration"

var (
	// identity are the fields the collector itself reads: identity and
	// labels for selection, resourceVersion for the cache. Selection reads
	// the annotations of namespaces only (from their own informer), so an
	// object keeps the annotations some Target reads and no other.
	identity = [][]string{
		{"apiVersion"}, {"kind"},
		{"metadata", "name"}, {"metadata", "namespace"}, {"metadata", "uid"},
		{"metadata", "labels"}, {"metadata", "resourceVersion"},
	}
	managedFieldsPath = []string{"metadata", "managedFields"}
	lastAppliedPath   = []string{"metadata", "annotations", lastApplied}
)

// Covers reports whether an informer built for r holds every field o needs.
func (r Requirement) Covers(o Requirement) bool {
	if r.Whole {
		return true
	}
	if o.Whole {
		return false
	}
	if o.Fields == nil {
		return true
	}
	for _, p := range o.Fields.Paths() {
		if !covers(r.Fields, p) {
			return false
		}
	}
	return true
}

// covers reports whether fs holds path or a prefix of it.
func covers(fs *extract.FieldSet, path []string) bool {
	if fs == nil {
		return false
	}
	for _, p := range fs.Paths() {
		if len(p) <= len(path) && equal(p, path[:len(p)]) {
			return true
		}
	}
	return false
}

func equal(a, b []string) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return len(a) == len(b)
}

// transform returns the informer transform of r: objects keep only the
// identity fields and those some Target reads; managedFields go unless a
// Target names them, and the last-applied annotation goes unless a Target
// reads annotations or the whole object. What is kept is cached as a
// compact Object; an Object passes through unchanged (the watch-list
// reflector transforms its initial objects once more when it replaces the
// cache with them).
func (r Requirement) transform() cache.TransformFunc {
	var keep *extract.FieldSet
	if !r.Whole {
		keep = extract.NewFieldSet(identity...)
		if r.Fields != nil {
			keep.Union(r.Fields)
		}
	}
	dropManaged := r.Whole || !covers(r.Fields, managedFieldsPath)
	dropLastApplied := !r.Whole && !covers(r.Fields, lastAppliedPath)
	strip := func(md map[string]any) {
		if dropManaged {
			delete(md, "managedFields")
		}
		if a, ok := md["annotations"].(map[string]any); ok && dropLastApplied {
			if _, ok := a[lastApplied]; ok {
				a = maps.Clone(a)
				delete(a, lastApplied)
				md["annotations"] = a
			}
			if len(a) == 0 {
				delete(md, "annotations")
			}
		}
	}
	return func(obj any) (any, error) {
		u, ok := obj.(*unstructured.Unstructured)
		if !ok {
			return obj, nil // an Object already, or not an object
		}
		content := u.Object
		if keep != nil {
			content = extract.Prune(content, keep)
		}
		return compact(content, strip)
	}
}
