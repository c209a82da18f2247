package kafka_test

import (
	"context"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kfake"
	"github.com/twmb/franz-go/pkg/kgo"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// admin returns an admin client of broker, closed when the test ends.
func admin(t *testing.T, broker string) *kadm.Client {
	t.Helper()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(cl.Close)
	return kadm.NewClient(cl)
}

func TestDriftIsFoundAndRepairedAfterTheTopicIsDamagedByHand(t *testing.T) {
	ctx := context.Background()
	for _, mode := range []string{v1alpha1.KafkaModeSnapshot, v1alpha1.KafkaModePerRow} {
		for _, tc := range []struct {
			name   string
			damage func(t *testing.T, adm *kadm.Client, topic string)
			want   string
		}{
			{"a deleted topic", func(t *testing.T, adm *kadm.Client, topic string) {
				if _, err := adm.DeleteTopic(ctx, topic); err != nil {
					t.Fatal(err)
				}
			}, "missing"},
			{"a topic deleted and re-created", func(t *testing.T, adm *kadm.Client, topic string) {
				if _, err := adm.DeleteTopic(ctx, topic); err != nil {
					t.Fatal(err)
				}
				if _, err := adm.CreateTopic(ctx, 1, 1, nil, topic); err != nil {
					t.Fatal(err)
				}
			}, "re-created"},
			{"records deleted up to the end", func(t *testing.T, adm *kadm.Client, topic string) {
				ends, err := adm.ListEndOffsets(ctx, topic)
				if err != nil {
					t.Fatal(err)
				}
				res, err := adm.DeleteRecords(ctx, ends.Offsets())
				if err == nil {
					err = res.Error()
				}
				if err != nil {
					t.Fatal(err)
				}
			}, "records deleted"},
		} {
			t.Run(mode+"/"+tc.name, func(t *testing.T) {
				broker := startKafka(t, kfake.DefaultNumPartitions(1))
				topic := "drift-" + strings.ToLower(mode)
				s := newSink(t, private, sinkConfig(t, spec(broker, topic, mode)), nil)
				sn := snap(t, web, 1, row("a", 1.0), row("b", 1.0), row("c", 1.0)) // JSON numbers decode as float64
				write(t, s, sn)
				if got, err := s.Drift(ctx, sn); err != nil || got != "" {
					t.Fatalf("drift of an intact topic = %q, %v; want none", got, err)
				}
				tc.damage(t, admin(t, broker), topic)
				got, err := s.Drift(ctx, sn)
				if err != nil || !strings.Contains(got, tc.want) {
					t.Fatalf("drift after %s = %q, %v; want a reason containing %q", tc.name, got, err, tc.want)
				}
				// The runtime's answer: the same revision again, as a repair.
				repair := sn
				repair.Repair = true
				write(t, s, repair)
				r := reader{broker: broker, topic: topic, perRow: mode == v1alpha1.KafkaModePerRow}
				proj, found, err := r.Read(ctx, "east", web)
				want := sinktest.Projection{Revision: 1, Checksum: sn.Envelope.Checksum, Rows: sn.Envelope.Items}
				if err != nil || !found {
					t.Fatalf("read back the repaired topic: %v (found %t)", err, found)
				}
				if d := cmp.Diff(want, proj); d != "" {
					t.Fatalf("the repaired topic (-want +got):\n%s", d)
				}
				if got, err := s.Drift(ctx, sn); err != nil || got != "" {
					t.Fatalf("drift after the repair = %q, %v; want none", got, err)
				}
			})
		}
	}
}

// A new sink (a restart) finds where its predecessor wrote the revision in
// the tail of the inventory key's partition, and checks that offset.
func TestARestartedSinkChecksTheOffsetItsPredecessorWrote(t *testing.T) {
	ctx := context.Background()
	broker := startKafka(t, kfake.DefaultNumPartitions(3))
	cfg := sinkConfig(t, spec(broker, "restarted", v1alpha1.KafkaModePerRow))
	sn := snap(t, web, 1, row("a", 1))
	write(t, newSink(t, private, cfg, nil), sn)
	restarted := newSink(t, private, cfg, nil)
	if got, err := restarted.Drift(ctx, sn); err != nil || got != "" {
		t.Fatalf("drift seen by a new sink = %q, %v; want none", got, err)
	}
	adm := admin(t, broker)
	if _, err := adm.DeleteTopic(ctx, "restarted"); err != nil {
		t.Fatal(err)
	}
	if _, err := adm.CreateTopic(ctx, 3, 1, nil, "restarted"); err != nil {
		t.Fatal(err)
	}
	if got, err := restarted.Drift(ctx, sn); err != nil || !strings.Contains(got, "re-created") {
		t.Fatalf("drift seen by a new sink after the topic was re-created = %q, %v; want it re-created", got, err)
	}
}
