package manifests

import (
	"fmt"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/api/v1alpha1"
)

// Set is the Kollect objects of a folder, typed, by kind. Objects of other
// groups are kept in Other.
type Set struct {
	Profiles           []*v1alpha1.KollectProfile
	Targets            []*v1alpha1.KollectTarget
	ClusterTargets     []*v1alpha1.KollectClusterTarget
	Inventories        []*v1alpha1.KollectInventory
	ClusterInventories []*v1alpha1.KollectClusterInventory
	Scopes             []*v1alpha1.KollectScope
	ClusterScopes      []*v1alpha1.KollectClusterScope
	// Kollect is every kollect.dev object, typed, in file order.
	Kollect []Typed
	// Other holds objects of other groups (Namespaces, workloads, ...).
	Other []Object
}

// Typed is a kollect.dev object with its source.
type Typed struct {
	Object
	Typed runtime.Object
}

// Sort decodes objs into a Set. An unknown kollect.dev kind or a document
// that does not decode into its type is an error naming the source.
func Sort(objs []Object) (*Set, error) {
	s := &Set{}
	scheme := runtime.NewScheme()
	if err := v1alpha1.AddToScheme(scheme); err != nil {
		return nil, err
	}
	for _, o := range objs {
		gvk := o.Object.GroupVersionKind()
		if gvk.Group != v1alpha1.GroupVersion.Group {
			s.Other = append(s.Other, o)
			continue
		}
		typed, err := decode(scheme, gvk, o)
		if err != nil {
			return nil, err
		}
		s.Kollect = append(s.Kollect, Typed{Object: o, Typed: typed})
		s.add(typed)
	}
	return s, nil
}

func decode(scheme *runtime.Scheme, gvk schema.GroupVersionKind, o Object) (runtime.Object, error) {
	if gvk.Version != v1alpha1.GroupVersion.Version {
		return nil, fmt.Errorf("%s: apiVersion %s is not served; use %s", o.Source(), gvk.GroupVersion(), v1alpha1.GroupVersion)
	}
	typed, err := scheme.New(gvk)
	if err != nil {
		return nil, fmt.Errorf("%s: unknown kind %s", o.Source(), gvk.Kind)
	}
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object.Object, typed); err != nil {
		return nil, fmt.Errorf("%s: %s %s: %w", o.Source(), gvk.Kind, o.Object.GetName(), err)
	}
	// The established v1alpha1 spellings become the canonical ones here,
	// so that nothing downstream branches on them; Object keeps the file
	// as written.
	v1alpha1.Normalize(typed)
	return typed, nil
}

func (s *Set) add(obj runtime.Object) {
	switch v := obj.(type) {
	case *v1alpha1.KollectProfile:
		s.Profiles = append(s.Profiles, v)
	case *v1alpha1.KollectTarget:
		s.Targets = append(s.Targets, v)
	case *v1alpha1.KollectClusterTarget:
		s.ClusterTargets = append(s.ClusterTargets, v)
	case *v1alpha1.KollectInventory:
		s.Inventories = append(s.Inventories, v)
	case *v1alpha1.KollectClusterInventory:
		s.ClusterInventories = append(s.ClusterInventories, v)
	case *v1alpha1.KollectScope:
		s.Scopes = append(s.Scopes, v)
	case *v1alpha1.KollectClusterScope:
		s.ClusterScopes = append(s.ClusterScopes, v)
	}
}

// Profile returns the Profile namespace/name, or nil.
func (s *Set) Profile(namespace, name string) *v1alpha1.KollectProfile {
	for _, p := range s.Profiles {
		if p.Namespace == namespace && p.Name == name {
			return p
		}
	}
	return nil
}
