package selection

import (
	"sort"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/util/sets"

	"kollect.dev/kollect/api/v1alpha1"
)

// Namespace is what selection needs of a namespace.
type Namespace struct {
	Name        string
	Labels      map[string]string
	Annotations map[string]string
}

// Namespace reports whether the selection reaches ns: selected by
// namespaceSelector or includedNamespaces (every namespace when neither is
// set), and neither excluded by name nor by namespaceExcludeSelector.
func (s *Selector) Namespace(ns Namespace) bool {
	if s.excluded.Has(ns.Name) {
		return false
	}
	set := labels.Set(ns.Labels)
	if s.nsExclude != nil && s.nsExclude.Matches(set) {
		return false
	}
	if s.allNS || s.included.Has(ns.Name) {
		return true
	}
	return s.nsSelector != nil && s.nsSelector.Matches(set)
}

// StaticNamespaces returns the namespaces the selection can reach when they
// are known from the spec alone (includedNamespaces without any selector),
// sorted; ok is false when labels decide. Informers use it to watch only
// those namespaces.
func (s *Selector) StaticNamespaces() (names []string, ok bool) {
	if s.allNS || s.nsSelector != nil {
		return nil, false
	}
	ns := sets.List(s.included.Difference(s.excluded))
	sort.Strings(ns)
	return ns, true
}

// Object reports whether obj is collected. ns is the object's namespace
// (nil for cluster-scoped objects, to which namespace rules do not apply).
// The caller has already checked Namespace(ns). err is a matchPolicy
// evaluation error; the object is then not collected.
func (s *Selector) Object(obj Object, ns *Namespace) (bool, error) {
	if !s.watched(obj.Labels, ns) {
		return false, nil
	}
	if s.objAll || s.names.Has(obj.Name) {
		return true, nil
	}
	set := labels.Set(obj.Labels)
	if s.objLabels != nil && s.objLabels.Matches(set) {
		return true, nil
	}
	var firstErr error
	for _, r := range s.rules {
		ok, err := r.matches(obj, set, ns)
		if ok {
			return true, nil
		}
		if err != nil && firstErr == nil {
			firstErr = err
		}
	}
	return false, firstErr
}

// Object is what selection needs of an object. Content is the whole object,
// for matchPolicy.
type Object struct {
	Name    string
	Labels  map[string]string
	Content map[string]any
}

func (r rule) matches(obj Object, set labels.Set, ns *Namespace) (bool, error) {
	if r.never {
		return false, nil
	}
	if r.nsLabels != nil && (ns == nil || !r.nsLabels.Matches(labels.Set(ns.Labels))) {
		return false, nil
	}
	if r.objLabels != nil && !r.objLabels.Matches(set) {
		return false, nil
	}
	if r.policy != nil {
		return r.policy.Match(obj.Content)
	}
	return true, nil
}

// watched applies the kollect.dev/watch precedence: object disabled, object
// enabled, namespace disabled, OptIn needs an enabled namespace, All collects.
func (s *Selector) watched(objLabels map[string]string, ns *Namespace) bool {
	switch objLabels[v1alpha1.LabelWatch] {
	case WatchDisabled:
		return false
	case WatchEnabled:
		return true
	}
	nsState := ""
	if ns != nil {
		nsState = ns.Labels[v1alpha1.LabelWatch]
		if nsState == "" {
			nsState = ns.Annotations[v1alpha1.AnnotationNamespaceWatch]
		}
	}
	switch nsState {
	case WatchDisabled:
		return false
	case WatchEnabled:
		return true
	}
	return !s.optIn
}

// Values of the kollect.dev/watch label and kollect.dev/namespace-watch
// annotation.
const (
	WatchEnabled  = "enabled"
	WatchDisabled = "disabled"
)

// HasPolicy reports whether any resource rule has a matchPolicy, which may
// read any field of the object.
func (s *Selector) HasPolicy() bool {
	for _, r := range s.rules {
		if r.policy != nil {
			return true
		}
	}
	return false
}

// ServerFilter returns a label selector and a field selector, in the API
// server's syntax, that every object Object may collect matches: a Target
// whose objects are chosen by labelSelector alone, or by a single name,
// lets the API server filter what it lists and watches. ok is false when
// the selection can only be decided here (no object selection, several
// names, resource rules).
func (s *Selector) ServerFilter() (labelSelector, fieldSelector string, ok bool) {
	switch {
	case len(s.rules) > 0:
		return "", "", false
	case s.objLabels != nil && s.names.Len() == 0 && !s.objLabels.Empty():
		return s.objLabels.String(), "", true
	case s.objLabels == nil && s.names.Len() == 1:
		return "", fields.OneTermEqualSelector("metadata.name", s.names.UnsortedList()[0]).String(), true
	}
	return "", "", false
}
