package parts_test

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/eventexporter/internal/parts"
)

func snap(cluster string, rev uint64, sum string, replay bool) sink.Snapshot {
	return sink.Snapshot{Replay: replay, Envelope: busv1.Envelope{Cluster: cluster, Revision: rev, Checksum: sum,
		Inventory: busv1.NamespacedName{Namespace: "team-a", Name: "web"}}}
}

func TestHighWater(t *testing.T) {
	tests := []struct {
		name string
		sent []sink.Snapshot
		next sink.Snapshot
		skip bool
	}{
		{"nothing sent yet sends", nil, snap("c", 1, "a", false), false},
		{"the same revision and checksum is skipped", []sink.Snapshot{snap("c", 3, "a", false)}, snap("c", 3, "a", false), true},
		{"an older revision is skipped", []sink.Snapshot{snap("c", 3, "a", false)}, snap("c", 2, "b", false), true},
		{"a newer revision is sent", []sink.Snapshot{snap("c", 3, "a", false)}, snap("c", 4, "a", false), false},
		{"the same revision with another checksum is sent", []sink.Snapshot{snap("c", 3, "a", false)}, snap("c", 3, "b", false), false},
		{"a replay of an older revision is sent", []sink.Snapshot{snap("c", 3, "a", false)}, snap("c", 2, "b", true), false},
		{"after a replay the replaced revision is sent again", []sink.Snapshot{snap("c", 3, "a", false), snap("c", 2, "b", true)}, snap("c", 3, "a", false), false},
		{"another cluster has its own mark", []sink.Snapshot{snap("c", 3, "a", false)}, snap("d", 1, "a", false), false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var h parts.HighWater
			for _, s := range tt.sent {
				h.Sent(s)
			}
			if got := h.Skip(tt.next); got != tt.skip {
				t.Fatalf("Skip = %v, want %v", got, tt.skip)
			}
		})
	}
}
