package history

import (
	"context"

	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// LastPublished returns the latest event of inv the aggregator published,
// skipping replays (SnapshotEvent.Replay, published by kollect replay), and
// the sequence of the latest event on the subject, replays included, which
// is what a publish expecting the subject's last sequence must quote. The
// event is nil when the aggregator published none that the history keeps;
// the sequence is 0 when the subject is empty.
func LastPublished(ctx context.Context, js jetstream.JetStream, inv busv1.NamespacedName) (*Stored, uint64, error) {
	last, err := Last(ctx, js, inv)
	if err != nil || last == nil {
		return nil, 0, err
	}
	if last.Event.Replay == nil {
		return last, last.Sequence, nil
	}
	evs, err := Events(ctx, js, inv)
	if err != nil {
		return nil, 0, err
	}
	seq := last.Sequence
	for i := len(evs) - 1; i >= 0; i-- {
		if evs[i].Sequence > seq {
			seq = evs[i].Sequence
		}
		if evs[i].Event.Replay == nil {
			return &evs[i], seq, nil
		}
	}
	return nil, seq, nil
}
