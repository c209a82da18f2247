package busv1

import "time"

// ReplayRequest is a KollectReplay compiled by control: the value of its key
// in the config bucket. The aggregator delivers the selected revisions and
// reports progress (StatusReport.Replay) until the request is done; control
// deletes the key once the KollectReplay's status holds the terminal phase
// (and with the object), so a finished replay never runs again.
type ReplayRequest struct {
	// Namespace of the KollectReplay.
	Namespace string `json:"namespace"`
	// Name of the KollectReplay.
	Name string `json:"name"`
	// UID of the KollectReplay: a replay deleted and created again under the
	// same name runs again.
	UID string `json:"uid"`
	// Generation is the KollectReplay's metadata.generation compiled.
	Generation int64 `json:"generation"`
	// InventoryKind is KindInventory or KindClusterInventory.
	InventoryKind Kind `json:"inventoryKind"`
	// Inventory is the inventory whose history is replayed; empty namespace
	// for a cluster inventory.
	Inventory NamespacedName `json:"inventory"`
	// Sink is the binding delivered to; the aggregator resolves it against
	// the inventory's current config when it publishes.
	Sink SinkRef `json:"sink"`
	// Revision selects one revision; zero when unset.
	Revision uint64 `json:"revision,omitempty"`
	// At selects the latest revision created at or before it; zero when
	// unset.
	At time.Time `json:"at,omitzero"`
	// Backfill selects every retained revision in [FromRevision,
	// ToRevision] (zero: unbounded), delivered oldest first.
	Backfill bool `json:"backfill,omitempty"`
	// FromRevision is the first revision of a backfill; zero is the oldest
	// retained.
	FromRevision uint64 `json:"fromRevision,omitempty"`
	// ToRevision is the last revision of a backfill; zero is the newest.
	ToRevision uint64 `json:"toRevision,omitempty"`
	// RequestedAt is the KollectReplay's creation time.
	RequestedAt time.Time `json:"requestedAt"`
	// RequestedBy names the user who created it, when known.
	RequestedBy string `json:"requestedBy,omitempty"`
}

// ReplayPhase is where a replay is, as KollectReplay status.phase.
type ReplayPhase string

// Replay phases.
const (
	// ReplayPending: the replay waits to start: for a replay slot (the
	// aggregator's --max-replays, --max-replays-per-namespace) or for the
	// pause before its next attempt after an interrupted run; Message says
	// which.
	ReplayPending ReplayPhase = "Pending"
	// ReplayRunning: revisions are being delivered.
	ReplayRunning ReplayPhase = "Running"
	// ReplaySucceeded: every selected revision was delivered.
	ReplaySucceeded ReplayPhase = "Succeeded"
	// ReplayFailed: the replay stopped; Outcome says why.
	ReplayFailed ReplayPhase = "Failed"
)

// ReplayStatus is the aggregator's progress on one replay request.
type ReplayStatus struct {
	// UID is the request's UID: a report for another UID is about an
	// older object of the same name.
	UID string `json:"uid"`
	// Phase is Running, Succeeded or Failed.
	Phase ReplayPhase `json:"phase"`
	// RevisionsTotal is how many revisions are delivered.
	RevisionsTotal int `json:"revisionsTotal"`
	// RevisionsDone is how many the sink acknowledged.
	RevisionsDone int `json:"revisionsDone"`
	// LastRevision is the last revision the sink acknowledged.
	LastRevision uint64 `json:"lastRevision,omitempty"`
	// StartedAt is when delivery started.
	StartedAt time.Time `json:"startedAt"`
	// FinishedAt is when the replay succeeded or failed.
	FinishedAt time.Time `json:"finishedAt,omitzero"`
	// Attempts is how many times delivery started (a Running report): a
	// run interrupted by a crash, restart or lost lease of its aggregator
	// is followed by another, up to the aggregator's
	// --replay-max-attempts. Zero in reports of releases before it was
	// counted, and in a Pending report before the first run.
	Attempts int `json:"attempts,omitempty"`
	// Outcome explains a failure (ReplayFailed); on a Pending report its
	// Message says what the replay waits for.
	Outcome
}
