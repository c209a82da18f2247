package busv1

import (
	"encoding/json"
	"time"
)

// SchemaVersion is the envelope schemaVersion of docs/contract.md.
const SchemaVersion = "kollect.dev/v1alpha1"

// Envelope is the canonical snapshot of one inventory, exactly the envelope of
// docs/contract.md. The aggregator builds it with Cluster and ExportedAt unset,
// because both belong to a delivery: each exporter calls Stamp with its sink's
// cluster and the export time before writing. Checksum covers the items only,
// so stamping never changes it.
type Envelope struct {
	// SchemaVersion is always SchemaVersion.
	SchemaVersion string `json:"schemaVersion"`
	// Checksum is the checksum (version 2, docs/contract.md) of the sorted items.
	Checksum string `json:"checksum"`
	// PreviousChecksum is the checksum of the revision the aggregator
	// published before this one for the same inventory, so a reader holding
	// a sequence of revisions can verify that it is unbroken; omitted for an
	// inventory's first revision and after the aggregator lost the history
	// (then the revision also jumps).
	PreviousChecksum string `json:"previousChecksum,omitempty"`
	// Revision increases monotonically per inventory.
	Revision uint64 `json:"revision"`
	// Generation is the inventory's metadata.generation.
	Generation int64 `json:"generation"`
	// Cluster is the sink's cluster, set by Stamp; always serialised.
	Cluster string `json:"cluster"`
	// Inventory names the inventory; Namespace is empty for a
	// ClusterInventory.
	Inventory NamespacedName `json:"inventory"`
	// ItemCount is the number of rows in the whole snapshot, across parts.
	ItemCount int `json:"itemCount"`
	// ExportedAt is when the exporter wrote this envelope, set by Stamp;
	// serialised as RFC 3339 in UTC.
	ExportedAt time.Time `json:"exportedAt"`
	// PartIndex is the zero-based index of this part; serialised, with
	// PartTotal, only when PartTotal > 0.
	PartIndex int `json:"partIndex,omitempty"`
	// PartTotal is the number of parts, or zero when the snapshot is not
	// split.
	PartTotal int `json:"partTotal,omitempty"`
	// Items are the rows in canonical order (see CompareRows); serialised as
	// [] when empty, never null.
	Items []Row `json:"items"`
	// AttributeTypes are the snapshot event's AttributeTypes, which the
	// exporter's loader copies here for sinks with typed columns. They are
	// not part of the envelope document of docs/contract.md (never
	// serialised) nor of its checksum.
	AttributeTypes AttributeTypes `json:"-"`
}

// Stamp returns a copy of e addressed to one sink: its cluster and the export
// time (converted to UTC). Items are shared, not copied.
func (e Envelope) Stamp(cluster string, exportedAt time.Time) Envelope {
	e.Cluster = cluster
	e.ExportedAt = exportedAt.UTC()
	return e
}

// MarshalJSON writes the envelope of docs/contract.md: items as [] when empty,
// exportedAt in UTC, partIndex and partTotal only for split snapshots.
func (e Envelope) MarshalJSON() ([]byte, error) {
	type plain Envelope
	out := struct {
		plain
		ExportedAt time.Time `json:"exportedAt"`
		PartIndex  *int      `json:"partIndex,omitempty"`
		PartTotal  *int      `json:"partTotal,omitempty"`
		Items      []Row     `json:"items"`
	}{plain: plain(e), ExportedAt: e.ExportedAt.UTC(), Items: e.Items}
	if e.PartTotal > 0 {
		out.PartIndex, out.PartTotal = &e.PartIndex, &e.PartTotal
	}
	if out.Items == nil {
		out.Items = []Row{}
	}
	return json.Marshal(out)
}
