package sink

import "context"

// DriftChecker is implemented by sinks that can check, cheaply and without
// writing, that what they hold for an inventory is still the snapshot they
// last wrote: a sink repaired or damaged by hand (rows deleted, a file
// edited, an object removed) converges again. The runtime calls Drift on a
// periodic event whose revision and checksum the binding has already
// delivered, instead of skipping it; a non-empty answer makes it write the
// full snapshot again with Snapshot.Repair set, count the repair in a metric
// and report it (an Event on the inventory).
type DriftChecker interface {
	// Drift returns "" when the sink holds s and otherwise a short reason
	// naming what differs ("state row missing", "1998 rows, want 2000",
	// "file deployments/a.yaml changed"). s holds the header only
	// (Inventory, Cluster, Revision, Checksum, Generation, ItemCount; see
	// Snapshot.Loaded); Drift may call s.Full when its check needs the rows,
	// but should prefer what the sink stores about itself (a row count and
	// checksum, a tree id, object names). Errors are retried like a failed
	// write.
	Drift(ctx context.Context, s Snapshot) (string, error)
}
