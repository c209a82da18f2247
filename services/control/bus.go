package control

import (
	"errors"
	"flag"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// BusConfig are the limits control provisions the bus with (--provision-bus);
// the rest of bus.Options keep their defaults. docs/bus.md sizes them.
type BusConfig struct {
	// Replicas of every stream, bucket and object store: 1, or 3 on a
	// three-node JetStream cluster so that losing a node loses nothing.
	Replicas int
	// Storage is "file" or "memory".
	Storage string
	// SnapshotHistory is how many snapshot events are kept per inventory
	// for replay.
	SnapshotHistory int64
	// SnapshotMaxAge is how long snapshot events and large envelopes are
	// kept; zero keeps them until SnapshotHistory evicts them.
	SnapshotMaxAge time.Duration
	// ExporterAckWait is how long an exporter may hold a snapshot event
	// before the bus delivers it again (to another replica after a crash).
	ExporterAckWait time.Duration
	// DeadLettersPerInventory is how many dead letters are kept per
	// inventory and exporter family, so that one tenant's failing bindings
	// evict only their own.
	DeadLettersPerInventory int64
	// DeadLetters is how many dead letters the stream keeps in all.
	DeadLetters int64
	// SnapshotMaxBytes and EnvelopeStoreMaxBytes bound the snapshot stream
	// and the envelope object store. A bound an operator
	// set on the stream by hand is kept (bus.Provision).
	SnapshotMaxBytes, EnvelopeStoreMaxBytes app.Bytes
}

func defaultBusConfig() BusConfig {
	d := bus.DefaultOptions()
	return BusConfig{Replicas: d.Replicas, Storage: "file", SnapshotHistory: d.SnapshotHistory, SnapshotMaxAge: d.SnapshotMaxAge,
		ExporterAckWait: d.ExporterAckWait, DeadLettersPerInventory: d.DeadLetterMaxMsgsPerInventory,
		DeadLetters: d.DeadLetterMaxMsgs, SnapshotMaxBytes: app.Bytes(d.SnapshotMaxBytes),
		EnvelopeStoreMaxBytes: app.Bytes(d.EnvelopeStoreMaxBytes)}
}

func (b *BusConfig) bindFlags(fs *flag.FlagSet) {
	fs.IntVar(&b.Replicas, "bus-replicas", b.Replicas, "Replicas of every bus stream, bucket and object store (1 to 5; 3 on a three-node JetStream cluster).")
	fs.StringVar(&b.Storage, "bus-storage", b.Storage, "Storage of the bus streams: file or memory.")
	fs.Int64Var(&b.SnapshotHistory, "bus-snapshot-history", b.SnapshotHistory, "Most snapshot events the stream keeps per inventory: the ceiling of spec.history.revisions (the aggregator trims each inventory to its own).")
	fs.DurationVar(&b.SnapshotMaxAge, "bus-snapshot-max-age", b.SnapshotMaxAge, "How long the stream keeps snapshot events, the ceiling of spec.history.maxAge (0: until evicted by --bus-snapshot-history).")
	fs.DurationVar(&b.ExporterAckWait, "bus-exporter-ack-wait", b.ExporterAckWait,
		"How long an exporter may hold a snapshot event before it is delivered again, to another replica after a crash (at least 1s).")
	fs.Int64Var(&b.DeadLettersPerInventory, "bus-dead-letters-per-inventory", b.DeadLettersPerInventory,
		"Most dead letters kept per inventory and exporter family; a new one evicts that inventory's oldest, never another's (1 to --bus-dead-letters).")
	fs.Int64Var(&b.DeadLetters, "bus-dead-letters", b.DeadLetters,
		"Most dead letters the stream keeps in all; over it the oldest of any inventory goes. Raise it with the number of inventories that may fail at once.")
	fs.Var(&b.SnapshotMaxBytes, "bus-snapshot-max-bytes",
		"Bound of the whole snapshot stream (e.g. 4Gi); a bound set on the stream by hand is kept. Size it above the sum of the namespaces' --namespace-bus-bytes you expect to be used.")
	fs.Var(&b.EnvelopeStoreMaxBytes, "bus-envelope-store-max-bytes",
		"Bound of the envelope object store (chunks, manifests, envelopes, deltas; e.g. 4Gi); a bound set by hand is kept.")
}

// Options returns the bus options to provision with, or an error naming
// every flag out of range.
func (b BusConfig) Options() (bus.Options, error) {
	o := bus.DefaultOptions()
	o.Replicas, o.SnapshotHistory, o.SnapshotMaxAge = b.Replicas, b.SnapshotHistory, b.SnapshotMaxAge
	o.ExporterAckWait, o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs = b.ExporterAckWait, b.DeadLettersPerInventory, b.DeadLetters
	o.SnapshotMaxBytes, o.EnvelopeStoreMaxBytes = int64(b.SnapshotMaxBytes), int64(b.EnvelopeStoreMaxBytes)
	var errs []error
	if b.Replicas < 1 || b.Replicas > 5 {
		errs = append(errs, fmt.Errorf("--bus-replicas %d: must be 1 to 5", b.Replicas))
	}
	switch b.Storage {
	case "file":
		o.Storage = jetstream.FileStorage
	case "memory":
		o.Storage = jetstream.MemoryStorage
	default:
		errs = append(errs, fmt.Errorf("--bus-storage %q: must be file or memory", b.Storage))
	}
	if b.SnapshotHistory < 1 {
		errs = append(errs, fmt.Errorf("--bus-snapshot-history %d: must be at least 1", b.SnapshotHistory))
	}
	if b.SnapshotMaxAge < 0 {
		errs = append(errs, fmt.Errorf("--bus-snapshot-max-age %v: must not be negative", b.SnapshotMaxAge))
	}
	if b.DeadLetters < 1 {
		errs = append(errs, fmt.Errorf("--bus-dead-letters %d: must be at least 1", b.DeadLetters))
	}
	if b.DeadLettersPerInventory < 1 || b.DeadLettersPerInventory > b.DeadLetters {
		errs = append(errs, fmt.Errorf("--bus-dead-letters-per-inventory %d: must be 1 to --bus-dead-letters (%d)", b.DeadLettersPerInventory, b.DeadLetters))
	}
	if err := errors.Join(errs...); err != nil {
		return o, err
	}
	return o, o.Validate()
}
