// Package rowstore is the collector's view of the rows bucket: it loads the
// rows already on the bus when the collector starts, writes a row only when
// its content changed, deletes rows as tombstones and lists the rows of a
// Target so that rows of objects that vanished while the collector was down
// can be removed after the informers relist.
//
// Writes are asynchronous: Put and Delete publish to the bucket's stream and
// return, with at most a window of writes awaiting the bus's acknowledgement.
// The Store tracks the latest write of each key until its ack: an ack makes
// it what the bus holds; a failed put makes the key's content unknown and is
// reported (OnFailure) so that the caller extracts the object again and puts
// its current content, never the stale bytes; a failed delete is sent again
// by the Store after a backoff unless a later write of the key replaced it.
// Counts and key lists follow the writes as issued, so they run ahead of the
// bus by at most the window.
//
// A row's value is a busv1.RowEntry whose row field holds the row's
// canonical JSON: encoding/json's output without HTML escaping, the bytes
// snapshot.Checksum hashes, so readers may keep them verbatim.
//
// rowstore owns no selection or extraction; it is only the write side of the
// rows bucket, and it is safe for concurrent use.
package rowstore
