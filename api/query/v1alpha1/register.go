package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Group is the API group of the history API.
const Group = "query.kollect.dev"

// GroupVersion is the group and version of this package's kinds.
var GroupVersion = schema.GroupVersion{Group: Group, Version: "v1alpha1"}

// The resources the query service serves, and their subresources.
const (
	// ResourceRevisions lists an inventory's revisions (InventoryRevision).
	ResourceRevisions = "inventoryrevisions"
	// ResourceHistories is one InventoryHistory per inventory with history,
	// the parent of the rows, diff and timeline subresources.
	ResourceHistories = "inventoryhistories"
	// ResourceClusterRevisions lists a cluster inventory's revisions
	// (ClusterInventoryRevision); cluster-scoped.
	ResourceClusterRevisions = "clusterinventoryrevisions"
	// ResourceClusterHistories is one ClusterInventoryHistory per cluster
	// inventory with history, the parent of the same subresources as
	// ResourceHistories; cluster-scoped.
	ResourceClusterHistories = "clusterinventoryhistories"
	// ResourceDeadLetters lists the dead letters of a namespace's
	// inventories (DeadLetter); get one by its sequence.
	ResourceDeadLetters = "deadletters"
	// ResourceClusterDeadLetters lists the cluster inventories' dead
	// letters (ClusterDeadLetter); cluster-scoped.
	ResourceClusterDeadLetters = "clusterdeadletters"
	// SubresourceRows is a revision's rows (Rows).
	SubresourceRows = "rows"
	// SubresourceDiff is the difference between two revisions (Diff).
	SubresourceDiff = "diff"
	// SubresourceTimeline is one object's timeline (Timeline).
	SubresourceTimeline = "timeline"
)

// InventoryDataSubresource is the subresource of kollect.dev's
// kollectinventories and kollectclusterinventories that a caller must be
// allowed to get (besides get on the inventory itself) to read an
// inventory's rows through rows, diff and timeline: the Kubernetes API
// server serves no such subresource, it exists only as an RBAC rule, so
// that reading an inventory's data is a grant of its own, apart from the
// view of the object that get gives.
const InventoryDataSubresource = "data"

// LabelInventory names the inventory of an InventoryRevision; list
// revisions of one inventory with the label selector
// kollect.dev/inventory=NAME.
const LabelInventory = "kollect.dev/inventory"

// AddToScheme registers the kinds of query.kollect.dev/v1alpha1 with s.
func AddToScheme(s *runtime.Scheme) error {
	s.AddKnownTypes(GroupVersion, &InventoryRevision{}, &InventoryRevisionList{}, &InventoryHistory{}, &InventoryHistoryList{},
		&ClusterInventoryRevision{}, &ClusterInventoryRevisionList{}, &ClusterInventoryHistory{}, &ClusterInventoryHistoryList{},
		&DeadLetter{}, &DeadLetterList{}, &ClusterDeadLetter{}, &ClusterDeadLetterList{})
	metav1.AddToGroupVersion(s, GroupVersion)
	return nil
}
