package busv1

import "time"

// SnapshotEvent is what the aggregator publishes on an inventory's snapshot
// subject each time the inventory must be delivered: on a material change, on
// a periodic re-export and on deletion. Exactly one of Envelope, ManifestRef
// and (in events published before manifests existed) EnvelopeRef is set. Exporters never apply an event whose Revision is older
// than the last one they delivered for a binding.
type SnapshotEvent struct {
	// Inventory names the inventory; Namespace is empty for a
	// ClusterInventory.
	Inventory NamespacedName `json:"inventory"`
	// InventoryUID is the uid of the inventory object that published the
	// event: a new inventory with a reused name never reads, diffs or
	// replays its predecessor's events. Empty in events of releases before
	// it was stamped.
	InventoryUID string `json:"inventoryUID,omitempty"`
	// Revision increases monotonically per inventory; equal to the
	// envelope's revision.
	Revision uint64 `json:"revision"`
	// Generation is the inventory's metadata.generation the snapshot was
	// built for.
	Generation int64 `json:"generation"`
	// Checksum is the envelope's checksum.
	Checksum string `json:"checksum"`
	// PreviousChecksum is the envelope's previousChecksum: the checksum of
	// the revision published before this one, empty for the first.
	PreviousChecksum string `json:"previousChecksum,omitempty"`
	// ItemCount is the envelope's item count.
	ItemCount int `json:"itemCount"`
	// CreatedAt is when the aggregator built the event.
	CreatedAt time.Time `json:"createdAt"`
	// Reason says why the event was published.
	Reason SnapshotReason `json:"reason"`
	// Envelope is the snapshot inline, without cluster or exportedAt (see
	// Envelope.Stamp); nil when EnvelopeRef is set.
	Envelope *Envelope `json:"envelope,omitempty"`
	// EnvelopeRef points to a whole envelope object in the bus object store:
	// only in events published before manifests existed (ManifestRef).
	EnvelopeRef *ObjectRef `json:"envelopeRef,omitempty"`
	// ManifestRef references the snapshot's Manifest in the envelope object
	// store when the envelope is not inline: the items are its chunks. Events
	// published before manifests existed carry EnvelopeRef instead.
	ManifestRef *ObjectRef `json:"manifestRef,omitempty"`
	// AttributeTypes are the declared types of the snapshot's attributes,
	// merged over the Profiles of the Targets whose rows it holds (see
	// MergeAttributeTypes): sinks with typed columns type them by it.
	// Omitted when no attribute has one type declared by every Target, and
	// in events of releases before types were carried. Not part of the
	// checksum.
	AttributeTypes AttributeTypes `json:"attributeTypes,omitempty"`
	// Delta is the change against the previous snapshot of this inventory,
	// for exporters that apply only what changed; nil for the first snapshot,
	// when the aggregator no longer has the base, and during a bulk arrival
	// of rows when it would hold more than half the snapshot (exporters
	// write those snapshots whole).
	Delta *Delta `json:"delta,omitempty"`
	// DeltaRef references the Delta as an object in the envelope object
	// store when it is too large for the event; at most one of Delta and
	// DeltaRef is set.
	DeltaRef *ObjectRef `json:"deltaRef,omitempty"`
	// Bindings are the sinks this event is addressed to: every binding on a
	// change or deletion, the one binding that is due on a periodic
	// re-export.
	Bindings []Binding `json:"bindings"`
	// DeletionPolicy is the inventory's policy, carried on every event the
	// aggregator publishes so that an aggregator that finds an inventory
	// deleted while it was down knows, from the last event, whether to
	// publish its deletion. Exporters act on it only when Reason is
	// ReasonDeleted.
	DeletionPolicy DeletionPolicy `json:"deletionPolicy,omitempty"`
	// Replay is set when the event is a historical snapshot re-delivered on
	// request (kollect replay) rather than published by the aggregator: it
	// has no delta, addresses one binding, and exporters write it even
	// though its revision is older than the one they delivered.
	Replay *Replay `json:"replay,omitempty"`
}

// Replay marks a SnapshotEvent re-delivered on request.
type Replay struct {
	// RequestedAt is when the replay was requested; it makes the event's
	// message id unique (bus.ReplayMsgID).
	RequestedAt time.Time `json:"requestedAt"`
	// RequestedBy names who asked for it, when known.
	RequestedBy string `json:"requestedBy,omitempty"`
	// UID is the requesting KollectReplay's uid: while the binding's export
	// state carries a Hold of that uid, exporters write this replay and
	// defer the binding's regular events.
	UID string `json:"uid,omitempty"`
	// Backfill is set on the revisions of a backfill (a range delivered in
	// order to fill a sink's history).
	Backfill bool `json:"backfill,omitempty"`
	// First is set on a backfill's first revision: a sink that keeps
	// history discards the history it holds from this revision on and
	// writes it as a forward write, so the backfill rebuilds the history
	// in order.
	First bool `json:"first,omitempty"`
}

// SnapshotReason says why a snapshot event was published.
type SnapshotReason string

// The snapshot reasons.
const (
	// ReasonChange is a material change of rows or of the inventory spec.
	ReasonChange SnapshotReason = "change"
	// ReasonPeriodic is the periodic re-export of an unchanged snapshot.
	ReasonPeriodic SnapshotReason = "periodic"
	// ReasonDeleted is the inventory's deletion; the envelope is empty and
	// DeletionPolicy says what exporters do with exported data.
	ReasonDeleted SnapshotReason = "deleted"
)

// ObjectRef points to an object in the bus object store.
type ObjectRef struct {
	// Bucket is the object store name.
	Bucket string `json:"bucket"`
	// Name is the object name.
	Name string `json:"name"`
	// Size is the object size in bytes.
	Size int64 `json:"size"`
	// Digest is the object store's digest of the object ("SHA-256=<base64>").
	Digest string `json:"digest"`
}

// Delta is the change from the snapshot at BaseRevision to this one.
// Applying it to a projection that holds BaseRevision (checksum BaseChecksum)
// yields this snapshot; a consumer at any other revision uses the full
// envelope instead.
type Delta struct {
	// BaseRevision is the revision the delta applies to.
	BaseRevision uint64 `json:"baseRevision"`
	// BaseChecksum is the checksum of the base snapshot.
	BaseChecksum string `json:"baseChecksum"`
	// Upserts are the rows added or changed, in canonical order.
	Upserts []Row `json:"upserts"`
	// Deletes are the keys of rows removed, in canonical order.
	Deletes []RowKey `json:"deletes"`
}
