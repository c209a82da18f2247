package history_test

import (
	"context"
	"sync"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/history"
)

// TestAnInlineEnvelopeIsSharedWithoutWrites reads the envelope of one
// event with an inline envelope and attribute types from several
// goroutines at once, as the bindings of one exporter do: each gets the
// types, and the event's own envelope is never written (the race detector
// caught the write in the CI mimic's fan-out system test).
func TestAnInlineEnvelopeIsSharedWithoutWrites(t *testing.T) {
	ev := &busv1.SnapshotEvent{Revision: 1,
		Envelope:       &busv1.Envelope{Revision: 1, Items: []busv1.Row{{Name: "web"}}},
		AttributeTypes: busv1.AttributeTypes{"replicas": "int"}}
	l := history.NewLoader(nil, 0)
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() {
			env, err := l.Envelope(context.Background(), ev)
			if err != nil {
				t.Error(err)
				return
			}
			if env.AttributeTypes["replicas"] != "int" || len(env.Items) != 1 {
				t.Errorf("envelope %+v, want the event's types and its one row", env)
			}
		})
	}
	wg.Wait()
	if ev.Envelope.AttributeTypes != nil {
		t.Errorf("the event's own envelope was written: %v", ev.Envelope.AttributeTypes)
	}
}
