package history

import (
	"context"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Fetch returns the first event of inv with revision and its envelope,
// resolved from the object store when the event holds a reference.
func Fetch(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, revision uint64) (*busv1.SnapshotEvent, *busv1.Envelope, error) {
	return fetch(ctx, js, inv, func(e *busv1.SnapshotEvent) bool { return e.Revision == revision },
		fmt.Sprintf("revision %d", revision))
}

// FetchAt returns the latest event of inv created at or before t, with its
// envelope.
func FetchAt(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, t time.Time) (*busv1.SnapshotEvent, *busv1.Envelope, error) {
	evs, err := Events(ctx, js, inv)
	if err != nil {
		return nil, nil, err
	}
	for i := len(evs) - 1; i >= 0; i-- {
		if ev := &evs[i].Event; !ev.CreatedAt.After(t) {
			env, err := Envelope(ctx, js, ev)
			return ev, env, err
		}
	}
	return nil, nil, fmt.Errorf("fetch snapshot of %s at %s: %w", inv, t.Format(time.RFC3339), ErrNotFound)
}

func fetch(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, match func(*busv1.SnapshotEvent) bool, what string) (*busv1.SnapshotEvent, *busv1.Envelope, error) {
	evs, err := Events(ctx, js, inv)
	if err != nil {
		return nil, nil, err
	}
	for i := range evs {
		if ev := &evs[i].Event; match(ev) {
			env, err := Envelope(ctx, js, ev)
			return ev, env, err
		}
	}
	return nil, nil, fmt.Errorf("fetch snapshot of %s at %s: %w", inv, what, ErrNotFound)
}

// Envelope returns the full envelope of ev (see Loader.Envelope), with a
// Loader of its own: callers reading several revisions share a Loader
// instead.
func Envelope(ctx context.Context, js jetstream.JetStream, ev *busv1.SnapshotEvent) (*busv1.Envelope, error) {
	return NewLoader(js, -1).Envelope(ctx, ev)
}
