package kafka

import (
	"strconv"
	"time"

	"github.com/twmb/franz-go/pkg/kgo"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

// The record headers; every record carries the first five.
const (
	HeaderSchema    = "kollect-schema"
	HeaderChecksum  = "kollect-checksum"
	HeaderRevision  = "kollect-revision"
	HeaderCluster   = "kollect-cluster"
	HeaderInventory = "kollect-inventory" // "<namespace>/<name>"
	// HeaderPart is "i/n" on the records of a split snapshot.
	HeaderPart = "kollect-part"
	// HeaderRecord says what a perRow-mode record holds: RecordRow or
	// RecordInventory.
	HeaderRecord = "kollect-record"
)

// The values of HeaderRecord.
const (
	RecordRow       = "row"
	RecordInventory = "inventory"
)

// InventoryKey is the key of an inventory's snapshot records (and of its
// inventory record in perRow mode): "<cluster>/<namespace>/<inventory>",
// the namespace empty for a ClusterInventory.
func InventoryKey(cluster string, inv busv1.NamespacedName) string {
	return cluster + "/" + inv.Namespace + "/" + inv.Name
}

// RowKey is the key of a row's records in perRow mode:
// "<inventory key>/<targetNamespace>/<targetName>/<uid>".
func RowKey(cluster string, inv busv1.NamespacedName, k busv1.RowKey) string {
	return InventoryKey(cluster, inv) + "/" + k.TargetNamespace + "/" + k.TargetName + "/" + k.UID
}

// headers returns the headers of every record of env.
func headers(env busv1.Envelope) []kgo.RecordHeader {
	return []kgo.RecordHeader{
		{Key: HeaderSchema, Value: []byte(env.SchemaVersion)},
		{Key: HeaderChecksum, Value: []byte(env.Checksum)},
		{Key: HeaderRevision, Value: []byte(strconv.FormatUint(env.Revision, 10))},
		{Key: HeaderCluster, Value: []byte(env.Cluster)},
		{Key: HeaderInventory, Value: []byte(env.Inventory.Namespace + "/" + env.Inventory.Name)},
	}
}

// snapshotRecord is the record of one part (or of the whole envelope).
func (k *Sink) snapshotRecord(p parts.Part) *kgo.Record {
	h := headers(p.Envelope)
	if l := p.Label(); l != "" {
		h = append(h, kgo.RecordHeader{Key: HeaderPart, Value: []byte(l)})
	}
	return &kgo.Record{Topic: k.set.topic, Key: []byte(InventoryKey(p.Envelope.Cluster, p.Envelope.Inventory)),
		Value: p.JSON, Headers: h}
}

// RowValue is the value of a row record in perRow mode: the row and the
// snapshot it was last changed in.
type RowValue struct {
	// SchemaVersion is the envelope's schemaVersion.
	SchemaVersion string `json:"schemaVersion"`
	// Cluster is the sink's cluster.
	Cluster string `json:"cluster"`
	// Inventory names the inventory.
	Inventory busv1.NamespacedName `json:"inventory"`
	// Revision is the snapshot revision that sent this row.
	Revision uint64 `json:"revision"`
	// Checksum is that snapshot's checksum.
	Checksum string `json:"checksum"`
	// ExportedAt is that snapshot's export time.
	ExportedAt time.Time `json:"exportedAt"`
	// Row is the row.
	Row busv1.Row `json:"row"`
}

// InventoryValue is the value of the inventory record that closes each
// export in perRow mode: the envelope without items. Its itemCount is the
// number of live row keys the inventory has at that revision.
type InventoryValue struct {
	// SchemaVersion is the envelope's schemaVersion.
	SchemaVersion string `json:"schemaVersion"`
	// Checksum is the snapshot's checksum.
	Checksum string `json:"checksum"`
	// Revision is the snapshot's revision.
	Revision uint64 `json:"revision"`
	// Generation is the inventory's generation.
	Generation int64 `json:"generation"`
	// Cluster is the sink's cluster.
	Cluster string `json:"cluster"`
	// Inventory names the inventory.
	Inventory busv1.NamespacedName `json:"inventory"`
	// ItemCount is the number of rows in the snapshot.
	ItemCount int `json:"itemCount"`
	// ExportedAt is the export time.
	ExportedAt time.Time `json:"exportedAt"`
}

func inventoryValue(env busv1.Envelope) InventoryValue {
	return InventoryValue{SchemaVersion: env.SchemaVersion, Checksum: env.Checksum, Revision: env.Revision,
		Generation: env.Generation, Cluster: env.Cluster, Inventory: env.Inventory, ItemCount: env.ItemCount,
		ExportedAt: env.ExportedAt.UTC()}
}
