package azureblob

import (
	"context"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

// snap is a stamped snapshot of n rows at revision.
func snap(t testing.TB, revision uint64, n int) sink.Snapshot {
	t.Helper()
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a",
			Name: "pod-" + string(rune('a'+i)), UID: "uid-" + string(rune('a'+i)), Version: "v1", Kind: "Pod",
			Attributes: map[string]any{"restarts": float64(i)}}
	}
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: "team-a", Name: "web"}, revision, 1, rows)
	if err != nil {
		t.Fatal(err)
	}
	return sink.Snapshot{Envelope: env.Stamp("conformance", time.Now())}
}

func write(t testing.TB, s sink.Sink, snap sink.Snapshot) {
	t.Helper()
	if err := s.Write(context.Background(), snap); err != nil {
		t.Fatalf("write revision %d: %v", snap.Envelope.Revision, err)
	}
}
