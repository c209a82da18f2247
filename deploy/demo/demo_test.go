package demo

import (
	"bytes"
	"context"
	"strings"
	"testing"
	"time"
)

// TestDemoRunsEndToEnd runs the demo once: control compiles the resources,
// the collector extracts the Deployments, the aggregator publishes the
// snapshot and, after the image change, a revision whose delta holds it.
func TestDemoRunsEndToEnd(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	var out bytes.Buffer
	if err := Run(ctx, &out, Options{Once: true, Timeout: 90 * time.Second}); err != nil {
		t.Fatalf("demo: %v\n%s", err, out.String())
	}
	got := out.String()
	t.Log(got)
	for _, want := range []string{`"itemCount": 3`, `"nginx:1.27"`, `"api:2.1"`, `"owner": "alice"`, "the delta exporters apply", `"nginx:1.28"`} {
		if !strings.Contains(got, want) {
			t.Errorf("demo output lacks %s:\n%s", want, got)
		}
	}
}
