// Package engine is the aggregator's core: it follows the rows bucket and the
// inventories' compiled config, keeps one canonical snapshot per inventory and
// decides when to publish it: after a settle window on a material change (rows
// or generation), per binding at its effective interval when unchanged, and
// once more on deletion when the inventory's deletionPolicy is Delete. It
// continues each inventory's revision sequence from the last event on the
// inventory's snapshot subject, so a restart or a new leader never reuses a
// revision and never re-publishes an unchanged snapshot.
//
// The engine runs on one goroutine. Leader election, flags and connections
// are the aggregator's Run; encoding and storing events are package publish's.
package engine
