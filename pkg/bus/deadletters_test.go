package bus

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// smallDeadLetters are options whose dead-letter limits a test can reach:
// 5 per inventory and family, 50 in all.
func smallDeadLetters() Options {
	o := DefaultOptions()
	o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs = 5, 50
	return o
}

var (
	tenantA = busv1.NamespacedName{Namespace: "team-a", Name: "broken"}
	tenantB = busv1.NamespacedName{Namespace: "team-b", Name: "apps"}
)

// publishDeadLetters publishes dead letters with revisions from..to on the
// family's dead-letter subject of inv.
func publishDeadLetters(ctx context.Context, t *testing.T, js jetstream.JetStream, inv busv1.NamespacedName, from, to int) {
	t.Helper()
	for rev := from; rev <= to; rev++ {
		if _, err := js.Publish(ctx, DeadLetterSubject(busv1.FamilyDatabase, inv), fmt.Appendf(nil, `{"revision":%d}`, rev)); err != nil {
			t.Fatalf("publish dead letter %d of %s: %v", rev, inv, err)
		}
	}
}

// deadLetterRevisions returns the revisions of inv's database dead letters,
// oldest first.
func deadLetterRevisions(ctx context.Context, t *testing.T, js jetstream.JetStream, inv busv1.NamespacedName) []string {
	t.Helper()
	subject := DeadLetterSubject(busv1.FamilyDatabase, inv)
	n := subjectCount(ctx, t, js, StreamDeadLetters, subject)
	if n == 0 {
		return nil
	}
	c, err := js.OrderedConsumer(ctx, StreamDeadLetters, jetstream.OrderedConsumerConfig{FilterSubjects: []string{subject}})
	if err != nil {
		t.Fatal(err)
	}
	batch, err := c.FetchNoWait(int(n))
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for m := range batch.Messages() {
		out = append(out, string(m.Data()))
	}
	if err := batch.Error(); err != nil {
		t.Fatal(err)
	}
	return out
}

func revisions(from, to int) []string {
	var out []string
	for rev := from; rev <= to; rev++ {
		out = append(out, fmt.Sprintf(`{"revision":%d}`, rev))
	}
	return out
}

func TestOneInventoryCannotEvictAnothersDeadLetters(t *testing.T) {
	ctx, js := provisioned(t, smallDeadLetters())
	publishDeadLetters(ctx, t, js, tenantB, 1, 1)
	publishDeadLetters(ctx, t, js, tenantA, 1, 200)

	t.Run("tenant B's dead letter survives tenant A's flood", func(t *testing.T) {
		if diff := cmp.Diff(revisions(1, 1), deadLetterRevisions(ctx, t, js, tenantB)); diff != "" {
			t.Errorf("B's dead letters (-want +got):\n%s", diff)
		}
	})
	t.Run("tenant A keeps only its newest dead letters", func(t *testing.T) {
		if diff := cmp.Diff(revisions(196, 200), deadLetterRevisions(ctx, t, js, tenantA)); diff != "" {
			t.Errorf("A's dead letters (-want +got):\n%s", diff)
		}
	})
}

func TestTheStreamWideDeadLetterCapStillBounds(t *testing.T) {
	// Until namespaces have inventory quotas, one tenant with more than
	// DeadLetterMaxMsgs / DeadLetterMaxMsgsPerInventory failing inventories
	// still reaches the stream-wide cap, which evicts the oldest of all.
	o := smallDeadLetters()
	ctx, js := provisioned(t, o)
	publishDeadLetters(ctx, t, js, tenantB, 1, 1)
	for i := range 11 {
		publishDeadLetters(ctx, t, js, busv1.NamespacedName{Namespace: "team-a", Name: fmt.Sprintf("inv-%d", i)}, 1, 5)
	}
	s, err := js.Stream(ctx, StreamDeadLetters)
	if err != nil {
		t.Fatal(err)
	}
	info, err := s.Info(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if info.State.Msgs != uint64(o.DeadLetterMaxMsgs) {
		t.Errorf("dead letters kept = %d, want the cap %d", info.State.Msgs, o.DeadLetterMaxMsgs)
	}
	if got := deadLetterRevisions(ctx, t, js, tenantB); got != nil {
		t.Errorf("B's dead letters = %q, want evicted by the stream-wide cap", got)
	}
}

func TestReprovisioningBoundsDeadLettersPerInventoryAndKeepsThem(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, js := testContext(t), n.JS
	// The dead-letter stream as Provision created it before it was bounded
	// per inventory: one stream-wide cap of 10000.
	old := streamConfig(t, DefaultOptions(), StreamDeadLetters)
	old.MaxMsgsPerSubject, old.MaxMsgs = -1, 10000
	if _, err := js.CreateStream(ctx, old); err != nil {
		t.Fatalf("create the unbounded dead-letter stream: %v", err)
	}
	publishDeadLetters(ctx, t, js, tenantB, 1, 3)
	publishDeadLetters(ctx, t, js, tenantA, 1, 8)

	o := smallDeadLetters()
	if err := Provision(ctx, js, o); err != nil {
		t.Fatalf("Provision over the existing stream: %v", err)
	}
	t.Run("the stream takes the new limits", func(t *testing.T) {
		got := streamLimits(ctx, t, js, StreamDeadLetters)
		if got.MaxMsgsPerSubject != 5 || got.MaxMsgs != 50 {
			t.Errorf("limits = %+v, want 5 per subject and 50 in all", got)
		}
	})
	t.Run("dead letters within the new bound are kept", func(t *testing.T) {
		if diff := cmp.Diff(revisions(1, 3), deadLetterRevisions(ctx, t, js, tenantB)); diff != "" {
			t.Errorf("B's dead letters (-want +got):\n%s", diff)
		}
	})
	t.Run("an inventory over the new bound keeps its newest", func(t *testing.T) {
		if diff := cmp.Diff(revisions(4, 8), deadLetterRevisions(ctx, t, js, tenantA)); diff != "" {
			t.Errorf("A's dead letters (-want +got):\n%s", diff)
		}
	})
	t.Run("later dead letters are bounded per inventory", func(t *testing.T) {
		publishDeadLetters(ctx, t, js, tenantA, 9, 20)
		if diff := cmp.Diff(revisions(16, 20), deadLetterRevisions(ctx, t, js, tenantA)); diff != "" {
			t.Errorf("A's dead letters (-want +got):\n%s", diff)
		}
		if diff := cmp.Diff(revisions(1, 3), deadLetterRevisions(ctx, t, js, tenantB)); diff != "" {
			t.Errorf("B's dead letters (-want +got):\n%s", diff)
		}
	})
}

// streamConfig returns the catalogue's configuration of stream name.
func streamConfig(t *testing.T, o Options, name string) jetstream.StreamConfig {
	t.Helper()
	for _, s := range o.Catalogue().Streams {
		if s.Config.Name == name {
			return s.Config
		}
	}
	t.Fatalf("no stream %s in the catalogue", name)
	return jetstream.StreamConfig{}
}

func TestDeadLetterLimitsAreValidated(t *testing.T) {
	tests := []struct {
		name              string
		perInventory, all int64
		err               string
	}{
		{name: "no dead letters per inventory", perInventory: 0, all: 50, err: "deadLetterMaxMsgsPerInventory 0: must be at least 1"},
		{name: "more per inventory than in all", perInventory: 51, all: 50,
			err: "deadLetterMaxMsgsPerInventory 51: must not exceed deadLetterMaxMsgs 50"},
		{name: "as many per inventory as in all", perInventory: 50, all: 50},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			o := DefaultOptions()
			o.DeadLetterMaxMsgsPerInventory, o.DeadLetterMaxMsgs = tc.perInventory, tc.all
			err := o.Validate()
			switch {
			case tc.err == "" && err != nil:
				t.Errorf("Validate() = %v, want nil", err)
			case tc.err != "" && (err == nil || !strings.Contains(err.Error(), tc.err)):
				t.Errorf("Validate() = %v, want an error naming %q", err, tc.err)
			}
		})
	}
}
