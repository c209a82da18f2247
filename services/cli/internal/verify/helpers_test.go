package verify_test

import (
	"fmt"
	"os"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
	"kollect.dev/kollect/pkg/testenv"
)

// server is the PostgreSQL cluster of the package's tests, started on first
// use.
var server *testenv.Postgres

func TestMain(m *testing.M) {
	code := m.Run()
	if server != nil {
		if err := server.Stop(); err != nil {
			fmt.Fprintln(os.Stderr, "stop PostgreSQL:", err)
		}
	}
	os.Exit(code)
}

var web = busv1.NamespacedName{Namespace: "team-a", Name: "web"}

func row(uid string, v float64) busv1.Row {
	return busv1.Row{TargetNamespace: "team-a", TargetName: "pods", Namespace: "team-a", Name: "pod-" + uid,
		UID: uid, Version: "v1", Kind: "Pod", Attributes: map[string]any{"v": v, "image": "web:" + uid}}
}

// chain returns the envelopes of three revisions of web, each naming the
// one before as previousChecksum: a change and an addition, then a removal.
func chain(t *testing.T) []busv1.Envelope {
	t.Helper()
	sets := [][]busv1.Row{
		{row("a", 1), row("b", 2)},
		{row("a", 1), row("b", 3), row("c", 1)},
		{row("a", 1), row("c", 1)},
	}
	var out []busv1.Envelope
	prev := ""
	for i, rows := range sets {
		env, err := snapshot.Envelope(web, uint64(i+1), 1, rows)
		if err != nil {
			t.Fatal(err)
		}
		env.PreviousChecksum, prev = prev, env.Checksum
		out = append(out, env.Stamp("prod-eu-1", time.Date(2026, 11, 29, 12, 0, i, 0, time.UTC)))
	}
	return out
}
