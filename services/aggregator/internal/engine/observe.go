package engine

import busv1 "kollect.dev/kollect/api/bus/v1"

// Event is one step of the engine's work, told to Options.Observe.
type Event struct {
	// Kind is what happened.
	Kind EventKind
	// Inventory is the inventory checked or published; empty otherwise.
	Inventory busv1.NamespacedName
	// Revision is the bucket revision of an applied entry, or the
	// revision of a published snapshot event.
	Revision uint64
}

// EventKind says what an Event reports.
type EventKind uint8

const (
	// EventRebuilt: the rebuild ended; the engine publishes from now on.
	EventRebuilt EventKind = iota + 1
	// EventRowApplied: an entry of the rows bucket was applied (or
	// skipped as undecodable); Revision is its bucket revision.
	EventRowApplied
	// EventConfigApplied: an inventory entry of the config bucket was
	// applied (or skipped); Revision is its bucket revision.
	EventConfigApplied
	// EventChecked: an inventory's pending check ran (read back, settle
	// or final event), whatever its outcome.
	EventChecked
	// EventPublished: a snapshot event was published.
	EventPublished
	// EventCollected: a garbage collection ran.
	EventCollected
)

// observe tells Options.Observe, when set, that ev happened.
func (e *Engine) observe(ev Event) {
	if e.opts.Observe != nil {
		e.opts.Observe(ev)
	}
}
