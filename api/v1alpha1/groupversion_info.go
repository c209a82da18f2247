package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of every Kollect kind.
const Group = "kollect.dev"

// GroupVersion is the group and version of this package's kinds.
var GroupVersion = schema.GroupVersion{Group: Group, Version: "v1alpha1"}

// SchemeBuilder registers this package's kinds with a scheme.
var SchemeBuilder = runtime.NewSchemeBuilder(addKnownTypes)

// AddToScheme adds every kind of kollect.dev/v1alpha1 and its list type to s.
func AddToScheme(s *runtime.Scheme) error {
	return SchemeBuilder.AddToScheme(s)
}

// Objects returns one empty value of every kind, in the order of the API
// reference, paired with its list type. Tests and docs iterate it so that a
// new kind cannot be forgotten.
func Objects() []ObjectAndList {
	return []ObjectAndList{
		{&KollectProfile{}, &KollectProfileList{}},
		{&KollectTarget{}, &KollectTargetList{}},
		{&KollectInventory{}, &KollectInventoryList{}},
		{&KollectSnapshotSink{}, &KollectSnapshotSinkList{}},
		{&KollectDatabaseSink{}, &KollectDatabaseSinkList{}},
		{&KollectEventSink{}, &KollectEventSinkList{}},
		{&KollectScope{}, &KollectScopeList{}},
		{&KollectConnectionTest{}, &KollectConnectionTestList{}},
		{&KollectReplay{}, &KollectReplayList{}},
		{&KollectClusterTarget{}, &KollectClusterTargetList{}},
		{&KollectClusterInventory{}, &KollectClusterInventoryList{}},
		{&KollectClusterScope{}, &KollectClusterScopeList{}},
	}
}

// ObjectAndList pairs a kind with its list kind.
// +kubebuilder:object:generate=false
type ObjectAndList struct {
	Object runtime.Object
	List   runtime.Object
}

func addKnownTypes(s *runtime.Scheme) error {
	for _, o := range Objects() {
		s.AddKnownTypes(GroupVersion, o.Object, o.List)
	}
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
