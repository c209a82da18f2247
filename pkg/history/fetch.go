package history

import (
	"context"
	"fmt"
	"slices"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Fetch returns the first event of inv with revision and its envelope,
// resolved from the object store when the event holds a reference. It reads
// the subject's index (Index) and then one event: one envelope in memory,
// whatever the history holds.
func Fetch(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, revision uint64) (*busv1.SnapshotEvent, *busv1.Envelope, error) {
	return fetch(ctx, js, inv, fmt.Sprintf("revision %d", revision), func(idx []Entry) int {
		return slices.IndexFunc(idx, func(e Entry) bool { return e.Revision == revision })
	})
}

// FetchAt returns the latest event of inv created at or before t, with its
// envelope (see Fetch).
func FetchAt(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, t time.Time) (*busv1.SnapshotEvent, *busv1.Envelope, error) {
	return fetch(ctx, js, inv, t.Format(time.RFC3339), func(idx []Entry) int {
		for i := len(idx) - 1; i >= 0; i-- {
			if !idx[i].Time.After(t) {
				return i
			}
		}
		return -1
	})
}

// fetch reads the event pick chooses in inv's index (-1: none) and its
// envelope.
func fetch(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName, what string, pick func([]Entry) int) (*busv1.SnapshotEvent, *busv1.Envelope, error) {
	idx, err := Index(ctx, js, inv)
	if err != nil {
		return nil, nil, err
	}
	i := pick(idx)
	if i < 0 {
		return nil, nil, fmt.Errorf("fetch snapshot of %s at %s: %w", inv, what, ErrNotFound)
	}
	st, err := At(ctx, js, inv, idx[i].Sequence)
	if err != nil {
		return nil, nil, err
	}
	env, err := Envelope(ctx, js, &st.Event)
	return &st.Event, env, err
}

// Envelope returns the full envelope of ev (see Loader.Envelope), with a
// Loader of its own: callers reading several revisions share a Loader
// instead.
func Envelope(ctx context.Context, js jetstream.JetStream, ev *busv1.SnapshotEvent) (*busv1.Envelope, error) {
	return NewLoader(js, -1).Envelope(ctx, ev)
}
