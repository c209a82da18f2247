// Package engine turns Targets and watched objects into rows. It holds the
// compiled Targets (from the config watcher), tells the informer manager what
// each GVK's Targets need, and on every object event evaluates the object
// for each Target of its GVK and writes or deletes its row through the
// rowstore. Work goes through a rate-limited queue, so a bus outage is
// retried rather than lost, and every step is level-based: an item says
// which object to look at, never what changed. Row writes are asynchronous;
// a put the bus rejects or never acknowledges comes back from the rowstore
// and queues its object again after a backoff, so the object's current
// content is extracted and put, never the bytes that failed.
//
// After an informer's first full list the engine sweeps the rows of that
// GVK's Targets whose objects are not in the cache; this is how a restarted
// (or newly elected) collector removes rows of objects deleted while it was
// down. A Target that is deleted loses its rows; a suspended or invalid
// Target keeps them untouched.
//
// The engine reaches the cluster and the bus through two interfaces declared
// here (seams.go): Informers, which *informers.Manager implements, and Rows,
// which *rowstore.Store implements.
//
// The engine keeps each Target's status (collected count, extraction
// failures, last extraction error, matched namespaces, and why it cannot
// collect) and marks it for the status reporter; it does not publish
// status itself.
package engine
