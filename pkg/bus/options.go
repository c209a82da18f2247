package bus

import (
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// Options are the limits Provision applies. DefaultOptions suits one cluster
// of a few thousand inventories on a three-node NATS cluster with Replicas
// raised to 3; docs/bus.md explains how to size them.
type Options struct {
	// Replicas of every stream, bucket and object store (1 to 5).
	Replicas int
	// Storage of every stream, bucket and object store.
	Storage jetstream.StorageType
	// MaxMessageBytes is the largest message any stream or bucket accepts;
	// it must not exceed the server's max_payload. An envelope larger than
	// this goes to ObjectStoreEnvelopes.
	MaxMessageBytes int32
	// SnapshotHistory is how many snapshot events the stream keeps per
	// inventory: the ceiling of every inventory's retention. The aggregator
	// trims each inventory's history to its own spec.history (default 16
	// revisions) well below it; the default, MaxHistoryRevisions, lets
	// every retention the API admits fit.
	SnapshotHistory int64
	// SnapshotMaxAge is how long the stream keeps snapshot events: the
	// ceiling of every inventory's spec.history.maxAge (the aggregator's
	// default is 7 days). Zero keeps them until SnapshotHistory evicts
	// them.
	SnapshotMaxAge time.Duration
	// SnapshotMaxBytes bounds the whole snapshot stream; -1 is unlimited.
	// The aggregator keeps every namespace within its quota well below it;
	// the bound keeps a runaway from filling the whole store (DiscardOld:
	// the oldest events of any inventory go first).
	SnapshotMaxBytes int64
	// StatusMaxAge is how long a status report is kept when no newer report
	// replaces it; zero keeps it forever.
	StatusMaxAge time.Duration
	// DeadLetterMaxAge is how long dead letters are kept; zero keeps them
	// until DeadLetterMaxMsgsPerInventory or DeadLetterMaxMsgs evicts them.
	DeadLetterMaxAge time.Duration
	// DeadLetterMaxMsgsPerInventory bounds the dead letters kept per
	// inventory and exporter family (one dead-letter subject); a new one
	// evicts that subject's oldest, so an inventory whose bindings keep
	// failing evicts only its own dead letters, never another tenant's.
	DeadLetterMaxMsgsPerInventory int64
	// DeadLetterMaxMsgs bounds the whole dead-letter stream; the oldest go
	// first, whichever inventory they belong to. It is sized so that
	// DeadLetterMaxMsgsPerInventory bites first in ordinary use: the
	// default holds 1000 full dead-letter subjects.
	DeadLetterMaxMsgs int64
	// EnvelopeStoreMaxBytes bounds the envelope object store (snapshot
	// chunks, manifests and large deltas); -1 is unlimited. The aggregator
	// deletes what no retained snapshot references, so the store holds
	// about the current snapshots plus the chunks their histories changed;
	// the bound keeps a runaway from filling the whole bus.
	EnvelopeStoreMaxBytes int64
	// ExporterAckWait is how long an exporter may hold a snapshot event
	// before it is redelivered; exporters extend it while they work.
	ExporterAckWait time.Duration
	// ExporterMaxAckPending bounds the snapshot events in flight per exporter
	// family.
	ExporterMaxAckPending int
}

// MaxHistoryRevisions and MaxHistoryAge are the largest retention
// spec.history admits (v1alpha1.MaxHistoryRevisions, the CRD's maxAge
// bound); the default stream limits equal them.
const (
	MaxHistoryRevisions = 1000
	MaxHistoryAge       = 90 * 24 * time.Hour
)

// DefaultOptions returns the defaults: one replica on file storage, 1 MiB
// messages, up to MaxHistoryRevisions snapshot events per inventory for up
// to 90 days (the aggregator trims each inventory to its own retention), a
// 4 GiB snapshot stream and 4 GiB envelope store, status for 7 days, dead letters for 14 days: 100
// per inventory and family, 100000 in all.
func DefaultOptions() Options {
	return Options{
		Replicas:                      1,
		Storage:                       jetstream.FileStorage,
		MaxMessageBytes:               1 << 20,
		SnapshotHistory:               MaxHistoryRevisions,
		SnapshotMaxAge:                MaxHistoryAge,
		StatusMaxAge:                  7 * 24 * time.Hour,
		DeadLetterMaxAge:              14 * 24 * time.Hour,
		DeadLetterMaxMsgsPerInventory: 100,
		DeadLetterMaxMsgs:             100000,
		EnvelopeStoreMaxBytes:         4 << 30,
		SnapshotMaxBytes:              4 << 30,
		ExporterAckWait:               2 * time.Minute,
		ExporterMaxAckPending:         256,
	}
}

// Validate reports every option out of range.
func (o Options) Validate() error {
	var errs []error
	check := func(ok bool, format string, args ...any) {
		if !ok {
			errs = append(errs, fmt.Errorf(format, args...))
		}
	}
	check(o.Replicas >= 1 && o.Replicas <= 5, "replicas %d: must be 1 to 5", o.Replicas)
	check(o.Storage == jetstream.FileStorage || o.Storage == jetstream.MemoryStorage, "storage %v: must be file or memory", o.Storage)
	check(o.MaxMessageBytes > 0, "maxMessageBytes %d: must be positive", o.MaxMessageBytes)
	check(o.SnapshotHistory >= 1, "snapshotHistory %d: must be at least 1", o.SnapshotHistory)
	check(o.SnapshotMaxAge >= 0, "snapshotMaxAge %v: must not be negative", o.SnapshotMaxAge)
	check(o.StatusMaxAge >= 0, "statusMaxAge %v: must not be negative", o.StatusMaxAge)
	check(o.DeadLetterMaxAge >= 0, "deadLetterMaxAge %v: must not be negative", o.DeadLetterMaxAge)
	check(o.DeadLetterMaxMsgsPerInventory >= 1, "deadLetterMaxMsgsPerInventory %d: must be at least 1",
		o.DeadLetterMaxMsgsPerInventory)
	check(o.DeadLetterMaxMsgs >= 1, "deadLetterMaxMsgs %d: must be at least 1", o.DeadLetterMaxMsgs)
	check(o.DeadLetterMaxMsgsPerInventory <= o.DeadLetterMaxMsgs,
		"deadLetterMaxMsgsPerInventory %d: must not exceed deadLetterMaxMsgs %d",
		o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs)
	check(o.SnapshotMaxBytes == -1 || o.SnapshotMaxBytes > 0,
		"snapshotMaxBytes %d: must be positive or -1", o.SnapshotMaxBytes)
	check(o.EnvelopeStoreMaxBytes == -1 || o.EnvelopeStoreMaxBytes > 0,
		"envelopeStoreMaxBytes %d: must be positive or -1", o.EnvelopeStoreMaxBytes)
	check(o.ExporterAckWait >= time.Second, "exporterAckWait %v: must be at least 1s", o.ExporterAckWait)
	check(o.ExporterMaxAckPending >= 1, "exporterMaxAckPending %d: must be at least 1", o.ExporterMaxAckPending)
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("bus options: %w", err)
	}
	return nil
}
