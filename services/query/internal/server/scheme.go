package server

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

// newScheme returns the scheme of the served kinds with the meta types the
// generic server encodes (Status, discovery, options). The served kinds
// are registered once, in v1alpha1 and as the internal version, so that
// nothing converts.
func newScheme() (*runtime.Scheme, serializer.CodecFactory) {
	s := runtime.NewScheme()
	must(queryv1.AddToScheme(s))
	internal := schema.GroupVersion{Group: queryv1.Group, Version: runtime.APIVersionInternal}
	s.AddKnownTypes(internal, &queryv1.InventoryRevision{}, &queryv1.InventoryRevisionList{},
		&queryv1.InventoryHistory{}, &queryv1.InventoryHistoryList{},
		&queryv1.ClusterInventoryRevision{}, &queryv1.ClusterInventoryRevisionList{},
		&queryv1.ClusterInventoryHistory{}, &queryv1.ClusterInventoryHistoryList{},
		&queryv1.DeadLetter{}, &queryv1.DeadLetterList{}, &queryv1.ClusterDeadLetter{}, &queryv1.ClusterDeadLetterList{})
	must(s.SetVersionPriority(queryv1.GroupVersion))
	metav1.AddToGroupVersion(s, schema.GroupVersion{Version: "v1"})
	unversioned := schema.GroupVersion{Group: "", Version: "v1"}
	s.AddUnversionedTypes(unversioned, &metav1.Status{}, &metav1.APIVersions{}, &metav1.APIGroupList{},
		&metav1.APIGroup{}, &metav1.APIResourceList{})
	return s, serializer.NewCodecFactory(s)
}

// must panics on a static registration error, which cannot happen at run
// time once a test has built the scheme.
func must(err error) {
	if err != nil {
		panic(err)
	}
}
