package git

import (
	"fmt"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/snapshot"
)

// pod is a row of a Pod named name in namespace ns with attribute v.
func pod(ns, name string, v int) busv1.Row {
	return busv1.Row{TargetNamespace: ns, TargetName: "pods", Namespace: ns, Name: name, UID: "uid-" + ns + "-" + name,
		Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": float64(v), "labels": map[string]any{"app": name}}}
}

// snap is the snapshot of inventory ns/web at revision, stamped for the
// cluster "conformance".
func snap(t testing.TB, ns string, revision uint64, rows ...busv1.Row) sink.Snapshot {
	t.Helper()
	env, err := snapshot.Envelope(busv1.NamespacedName{Namespace: ns, Name: "web"}, revision, 1, rows)
	if err != nil {
		t.Fatalf("build envelope: %v", err)
	}
	return sink.Snapshot{Envelope: env.Stamp("conformance", time.Now())}
}

// pods returns n Pod rows in ns, attribute v on each.
func pods(ns string, n, v int) []busv1.Row {
	rows := make([]busv1.Row, n)
	for i := range rows {
		rows[i] = pod(ns, fmt.Sprintf("pod-%05d", i), v)
	}
	return rows
}
