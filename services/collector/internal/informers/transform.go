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
	// Namespaces restrict the informers to these namespaces (sorted), one
	// informer each up to MaxNamespaceInformers; empty watches all. It is
	// ignored for cluster-scoped kinds.
	Namespaces []string
	// LabelSelector and FieldSelector, in the API server's syntax, restrict
	// what the informer lists and watches: the API server sends only the
	// objects that match ("" for all). An object that stops matching
	// leaves the cache as if deleted.
	LabelSelector, FieldSelector string
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

// keepFields returns the fields an informer of r keeps: the identity
// fields and those some Target reads; nil when r is Whole.
func (r Requirement) keepFields() *extract.FieldSet {
	if r.Whole {
		return nil
	}
	keep := extract.NewFieldSet(identity...)
	if r.Fields != nil {
		keep.Union(r.Fields)
	}
	return keep
}

// dropManaged reports whether managedFields go: unless a Target names them.
func (r Requirement) dropManaged() bool { return r.Whole || !covers(r.Fields, managedFieldsPath) }

// strip returns the edit of a kept object's metadata (which it may modify):
// managedFields go unless a Target names them, and the last-applied
// annotation goes unless a Target reads annotations or the whole object.
func (r Requirement) strip() func(md map[string]any) {
	dropManaged := r.dropManaged()
	dropLastApplied := !r.Whole && !covers(r.Fields, lastAppliedPath)
	return func(md map[string]any) {
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
}

// transform returns the informer transform of r, for objects that reach the
// cache decoded by client-go rather than by r's decoder: objects keep only
// the identity fields and those some Target reads, without what strip
// drops, and are cached as a compact Object; an Object passes through
// unchanged (the decoder built it, or the watch-list reflector transforms
// its initial objects once more when it replaces the cache with them).
func (r Requirement) transform() cache.TransformFunc {
	keep, strip := r.keepFields(), r.strip()
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
