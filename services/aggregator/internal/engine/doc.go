// Package engine is the aggregator's core: it follows the rows bucket and the
// inventories' compiled config, keeps one canonical snapshot per inventory and
// decides when to publish it: after a settle window on a material change (rows
// or generation), per binding at its effective interval when unchanged, and
// once more on deletion when the inventory's deletionPolicy is Delete. It
// continues each inventory's revision sequence from the last event it
// published on the inventory's snapshot subject (replays from kollect replay
// are skipped), so a restart or a new leader never reuses a revision and
// never re-publishes an unchanged snapshot. Every event carries the
// deletionPolicy, so at the end of the rebuild an inventory deleted while no
// aggregator ran (a snapshot subject without config whose last event is not
// a deletion and says Delete) still gets its final empty snapshot,
// addressed to the bindings of its last change event.
//
// Each inventory is in one phase (loading, settling, idle, deleting; see
// phase.go), and its next check or periodic event waits in a timer queue, so
// a turn of the loop looks at the earliest wake-up only.
//
// Given Metrics, it records its work in them: leadership, snapshot build and
// publish durations, publishes and failures, each inventory's last snapshot
// size, and rows applied. Options.Observe is told each step (tests).
//
// The engine runs on one goroutine. Leader election, flags and connections
// are the aggregator's Run; encoding and storing events are package publish's.
package engine
