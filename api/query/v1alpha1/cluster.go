package v1alpha1

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// ClusterInventoryRevision is one revision of a KollectClusterInventory's
// history: the fields of an InventoryRevision, cluster-scoped (no
// namespace). Its name is "<inventory>.<revision>".
type ClusterInventoryRevision InventoryRevision

// ClusterInventoryRevisionList is a page of a cluster inventory's
// revisions, oldest first.
type ClusterInventoryRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the revisions.
	Items []ClusterInventoryRevision `json:"items"`
}

// ClusterInventoryHistory summarises the history kept for one
// KollectClusterInventory, as InventoryHistory does for a namespaced one;
// its name is the cluster inventory's. Its subresources rows, diff and
// timeline read it.
type ClusterInventoryHistory InventoryHistory

// ClusterInventoryHistoryList lists the cluster inventories that have a
// history the caller may read.
type ClusterInventoryHistoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the histories.
	Items []ClusterInventoryHistory `json:"items"`
}
