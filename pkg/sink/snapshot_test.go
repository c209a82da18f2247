package sink_test

import (
	"context"
	"errors"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
)

func TestSnapshotFull(t *testing.T) {
	full := busv1.Envelope{Revision: 2, ItemCount: 1, Items: []busv1.Row{{UID: "a"}}}
	header := busv1.Envelope{Revision: 2, ItemCount: 1}
	errGone := errors.New("object gone")
	for _, tc := range []struct {
		name    string
		snap    sink.Snapshot
		want    int
		wantErr error
	}{
		{"a loaded snapshot is returned as it is", sink.Snapshot{Envelope: full}, 1, nil},
		{"a header-only snapshot is loaded", sink.Snapshot{Envelope: header,
			Load: func(context.Context) (busv1.Envelope, error) { return full, nil }}, 1, nil},
		{"a failed load is returned, wrapped", sink.Snapshot{Envelope: header,
			Load: func(context.Context) (busv1.Envelope, error) { return busv1.Envelope{}, errGone }}, 0, errGone},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.snap.WithFull(context.Background())
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("WithFull error %v, want %v", err, tc.wantErr)
			}
			if err != nil {
				return
			}
			if !got.Loaded() || len(got.Envelope.Items) != tc.want || got.Envelope.ItemCount != 1 {
				t.Fatalf("WithFull returned %+v (loaded %t), want %d items", got.Envelope, got.Loaded(), tc.want)
			}
		})
	}
}
