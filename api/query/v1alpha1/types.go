package v1alpha1

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// InventoryRevision is one revision of an inventory's history. Its name is
// "<inventory>.<revision>"; its creation time is when the revision was
// published.
type InventoryRevision struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Inventory is the inventory's name.
	Inventory string `json:"inventory"`
	// Revision is the snapshot's revision, increasing per inventory.
	Revision uint64 `json:"revision"`
	// Generation is the inventory's metadata.generation the snapshot was
	// built for.
	Generation int64 `json:"generation"`
	// Time is when the revision was published.
	Time metav1.Time `json:"time"`
	// Reason says why: change or deleted (periodic re-exports repeat a
	// revision and are not listed).
	Reason string `json:"reason"`
	// ItemCount is the number of rows of the revision.
	ItemCount int `json:"itemCount"`
	// Added, Changed and Removed count the rows added, changed and removed
	// since the previous revision kept in the history (the first kept
	// revision counts every row as added).
	Added   int `json:"added"`
	Changed int `json:"changed"`
	Removed int `json:"removed"`
	// Checksum is the revision's checksum (CONTRACT: envelope checksum).
	Checksum string `json:"checksum"`
	// PreviousChecksum is the checksum of the revision published before
	// this one; empty for the first.
	PreviousChecksum string `json:"previousChecksum,omitempty"`
}

// InventoryRevisionList is a page of revisions, oldest first.
type InventoryRevisionList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the revisions.
	Items []InventoryRevision `json:"items"`
}

// InventoryHistory summarises the history kept for one inventory; its name
// is the inventory's. Its subresources rows, diff and timeline read it.
type InventoryHistory struct {
	metav1.TypeMeta   `json:",inline"`
	metav1.ObjectMeta `json:"metadata,omitempty"`

	// Revisions is the number of revisions kept.
	Revisions int `json:"revisions"`
	// Oldest and Latest are the first and last revisions kept.
	Oldest RevisionRef `json:"oldest"`
	Latest RevisionRef `json:"latest"`
	// ItemCount is the latest revision's row count.
	ItemCount int `json:"itemCount"`
	// Checksum is the latest revision's checksum.
	Checksum string `json:"checksum"`
}

// RevisionRef names a revision and when it was published.
type RevisionRef struct {
	// Revision is the revision number.
	Revision uint64 `json:"revision"`
	// Time is when it was published.
	Time metav1.Time `json:"time"`
}

// InventoryHistoryList lists the inventories of a namespace that have a
// history the caller may read.
type InventoryHistoryList struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Items are the histories.
	Items []InventoryHistory `json:"items"`
}

// Rows is a page of one revision's rows (the rows subresource), in
// canonical order.
type Rows struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Inventory names the inventory.
	Inventory busv1.NamespacedName `json:"inventory"`
	// Revision is the revision read: the one asked for, or the latest
	// published at or before the time asked for.
	Revision InventoryRevision `json:"revision"`
	// Items are the rows of this page.
	Items []busv1.Row `json:"items"`
}

// Diff is a page of the row-level difference between two revisions (the
// diff subresource).
type Diff struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Inventory names the inventory.
	Inventory busv1.NamespacedName `json:"inventory"`
	// From and To are the revisions compared.
	From InventoryRevision `json:"from"`
	To   InventoryRevision `json:"to"`
	// Items are this page's changes, in canonical row order.
	Items []RowChange `json:"items"`
}

// The kinds of change of a row.
const (
	// ChangeAdded is a row present only in the later revision.
	ChangeAdded = "added"
	// ChangeRemoved is a row present only in the earlier revision.
	ChangeRemoved = "removed"
	// ChangeChanged is a row present in both with different content.
	ChangeChanged = "changed"
)

// RowChange is one row's change between two revisions.
type RowChange struct {
	// Change is added, removed or changed.
	Change string `json:"change"`
	// Key identifies the row.
	Key busv1.RowKey `json:"key"`
	// Before is the row in the earlier revision; nil when added.
	Before *busv1.Row `json:"before,omitempty"`
	// After is the row in the later revision; nil when removed.
	After *busv1.Row `json:"after,omitempty"`
	// Attributes lists the attributes that differ, when changed; an
	// attribute missing on one side is null there.
	Attributes []AttributeChange `json:"attributes,omitempty"`
}

// AttributeChange is one attribute's (or identity field's) values before
// and after.
type AttributeChange struct {
	// Name is the attribute's name; identity fields that changed (name,
	// namespace, kind...) are named with a leading "." (".name").
	Name string `json:"name"`
	// Before and After are the values, null when absent.
	Before any `json:"before"`
	After  any `json:"after"`
}

// Timeline is a page of one object's changes across revisions (the
// timeline subresource): only the revisions where it appeared, changed or
// disappeared.
type Timeline struct {
	metav1.TypeMeta `json:",inline"`
	metav1.ListMeta `json:"metadata,omitempty"`
	// Inventory names the inventory.
	Inventory busv1.NamespacedName `json:"inventory"`
	// Items are the changes, oldest first.
	Items []TimelineEntry `json:"items"`
}

// TimelineEntry is the object's change at one revision.
type TimelineEntry struct {
	// Revision is the revision where it changed.
	Revision uint64 `json:"revision"`
	// Time is when that revision was published.
	Time metav1.Time `json:"time"`
	// RowChange is the change against the previous revision.
	RowChange `json:",inline"`
}
