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
// The high-water mark and, in perRow mode, the key and hash of each row
// last sent are kept in memory per inventory. A new sink starts without
// them: in snapshot mode it may send again a snapshot the topic already
// holds (same key, same checksum header: consumers compare checksums); in
// perRow mode its first full export without a delta upserts every row and
// cannot send tombstones for rows deleted while it was not running. A delta
// (sink.DeltaWriter, used by the runtime whenever the topic holds the
// delta's base) carries its deletes, so tombstones are sent across restarts
// in the common case; the inventory record of each export gives consumers
// the item count to detect the rare leftover. A delta is encoded from its
// own rows, never from the whole snapshot, and updates the rows memory by
// its keys only; a sink that started with deltas has no memory of the other
// rows until its next full export, which then upserts every row. When the
// memory shows that the topic last got another revision than the delta's
// base, the sink loads the full snapshot and sends the difference instead.
package kafka
