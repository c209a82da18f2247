// Package kafka is the kafka event sink backend: it publishes each
// inventory snapshot to a Kafka topic through franz-go, either as one
// envelope record per export (or per part, mode snapshot) or as one record
// per changed row plus a null-value tombstone per deleted row and an
// inventory record closing each export (mode perRow, for log-compacted
// topics). It owns the record layout (keys, values, headers), the topic's
// provisioning and the classification of Kafka errors.
//
// It does not own envelope splitting or the high-water mark (package parts),
// the exporter runtime, retries or export state (pkg/exporter), nor the
// address policy and TLS settings (pkg/egress), which it applies to every
// broker connection.
//
// # Keys
//
// Keys are "<cluster>/<namespace>/<inventory>"; a ClusterInventory has an
// empty namespace segment ("east//all-pods"). Row records are keyed by the
// row's identity under the inventory key,
// "<cluster>/<namespace>/<inventory>/<targetNamespace>/<targetName>/<uid>":
// two Targets of one inventory may collect the same object (one uid), and a
// key of the uid alone would let compaction drop one of the two rows.
//
// # Restarts
//
// The high-water mark, the position of each inventory's last export and,
// in perRow mode, the key and hash of each row last sent are kept in memory
// per inventory. A new sink (a restart, a changed config) recalls them from
// the topic on an inventory's first write or drift check (recall.go): the
// last complete export in the tail of the inventory key's partition becomes
// the high-water mark, so a revision delivered again after a kill between
// the produce and the export state is not sent again; in perRow mode a full
// write first reads the inventory's live rows back from the whole topic
// (bounded), so it tombstones every row key the snapshot lacks. The
// runtime hands a perRow sink a delta whenever it can (NeedsDelta): chained
// from the export state, or rebuilt from the snapshot history; a delta
// carries its deletes, is encoded from its own rows, never from the whole
// snapshot, and updates the rows memory by its keys only. When the memory
// shows that the topic last got another revision than the delta's base, the
// sink loads the full snapshot and sends the difference instead. What is
// left (a partial export repeated, bounds exceeded) is documented in
// docs/sinks/kafka.md.
//
// # Drift
//
// Drift checks that the topic exists and that the partition of the
// inventory key still holds the offset of the export's last record; a
// Repair write sends the whole snapshot, every row in perRow mode.
package kafka
