// Package rowstore is the collector's view of the rows bucket: it loads the
// rows already on the bus when the collector starts, writes a row only when
// its content changed, deletes rows as tombstones and lists the rows of a
// Target so that rows of objects that vanished while the collector was down
// can be removed after the informers relist.
//
// rowstore owns no selection or extraction; it is only the write side of the
// rows bucket, and it is safe for concurrent use.
package rowstore
