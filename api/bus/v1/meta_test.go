package busv1

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestDuration(t *testing.T) {
	tests := []struct {
		name    string
		json    string
		want    time.Duration
		wantErr bool
	}{
		{name: "a Go duration string decodes", json: `"1m30s"`, want: 90 * time.Second},
		{name: "zero decodes from 0s", json: `"0s"`, want: 0},
		{name: "a number of nanoseconds is rejected", json: `30000000000`, wantErr: true},
		{name: "a duration without unit is rejected", json: `"30"`, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var d Duration
			err := json.Unmarshal([]byte(tt.json), &d)
			if (err != nil) != tt.wantErr {
				t.Fatalf("Unmarshal(%s) error = %v, want error %v", tt.json, err, tt.wantErr)
			}
			if err == nil && d.Duration != tt.want {
				t.Errorf("Unmarshal(%s) = %v, want %v", tt.json, d.Duration, tt.want)
			}
		})
	}
}

func TestRowKey(t *testing.T) {
	tests := []struct {
		name string
		row  Row
		want RowKey
	}{
		{"a namespaced target's row key names the target namespace", podRow(),
			RowKey{TargetNamespace: "team-a", TargetName: "pods", UID: podRow().UID}},
		{"a cluster target's row key is marked as such", nodeRow(),
			RowKey{TargetName: "nodes", UID: nodeRow().UID, ClusterTarget: true}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if diff := cmp.Diff(tt.want, tt.row.Key()); diff != "" {
				t.Errorf("Key() (-want +got):\n%s", diff)
			}
		})
	}
}

func TestFamily(t *testing.T) {
	tests := []struct {
		family   Family
		exporter Service
		kind     Kind
	}{
		{FamilySnapshot, ServiceSnapshotExporter, KindSnapshotSink},
		{FamilyDatabase, ServiceDatabaseExporter, KindDatabaseSink},
		{FamilyEvent, ServiceEventExporter, KindEventSink},
	}
	for _, tt := range tests {
		t.Run("the "+string(tt.family)+" family has its exporter and sink kind", func(t *testing.T) {
			if got := tt.family.Exporter(); got != tt.exporter {
				t.Errorf("Exporter() = %q, want %q", got, tt.exporter)
			}
			if got := tt.family.SinkKind(); got != tt.kind {
				t.Errorf("SinkKind() = %q, want %q", got, tt.kind)
			}
		})
	}
	t.Run("Families lists every family once", func(t *testing.T) {
		if got := len(Families()); got != len(tests) {
			t.Errorf("len(Families()) = %d, want %d", got, len(tests))
		}
	})
}
