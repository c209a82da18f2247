// Package replay reads an inventory's snapshot history back from the bus: the
// events kept on its snapshot subject (revision, time, item count, checksum)
// and the envelope of one revision, resolving object-store references. The
// aggregator uses it to pick up where the last published event left off;
// `kollect snapshots` and `kollect replay` use it to list and re-deliver.
//
// replay only reads: it never publishes or deletes.
package replay
