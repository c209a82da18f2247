package objectstoretest

import (
	"context"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// DocExample is one object of a yaml block of a docs page.
type DocExample = sinktest.DocObject[v1alpha1.KollectSnapshotSinkSpec]

// DocSink is a docs page's sink example built on a backend's peer.
type DocSink struct {
	Sink sink.Sink
	// List returns every key of the bucket (container) the sink writes to.
	List func(t *testing.T) []string
	// Verify, when set, checks the written objects further.
	Verify func(t *testing.T, keys []string)
}

// RunDocExamples applies the examples of page (docs/sinks/<type>.md) to a
// backend's peer, the same way for every object store: secret sees each
// example Secret, build turns each KollectSnapshotSink example into a sink
// on the peer. Every sink passes its connection check, writes a one-row
// snapshot of team-a/web stamped with its spec.cluster, and leaves exactly
// want[name] in its bucket; the page has no sink want does not name.
func RunDocExamples(t *testing.T, page string, want map[string][]string,
	secret func(t *testing.T, o DocExample), build func(t *testing.T, o DocExample) DocSink) {
	t.Helper()
	var sinks []DocExample
	for _, o := range sinktest.DocObjects[v1alpha1.KollectSnapshotSinkSpec](t, page, "KollectSnapshotSink") {
		switch o.Kind {
		case "Secret":
			secret(t, o)
		case "KollectSnapshotSink":
			sinks = append(sinks, o)
		}
	}
	if len(sinks) != len(want) {
		t.Fatalf("%s has %d sinks, the test knows %d", page, len(sinks), len(want))
	}
	for _, o := range sinks {
		t.Run("the example "+o.Metadata.Name+" writes to the peer", func(t *testing.T) {
			d := build(t, o)
			if err := d.Sink.(sink.Checker).Check(context.Background()); err != nil {
				t.Fatalf("check: %v", err)
			}
			one := Pods(t, 1, 1)
			one.Envelope = one.Envelope.Stamp(o.Spec.Cluster, time.Now())
			Write(t, d.Sink, one)
			keys := d.List(t)
			if diff := cmp.Diff(want[o.Metadata.Name], keys); diff != "" {
				t.Fatalf("objects (-want +got):\n%s", diff)
			}
			if d.Verify != nil {
				d.Verify(t, keys)
			}
		})
	}
}
