package busv1

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"reflect"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/testenv/golden"
)

// compactRaw compares raw JSON by content: the golden file indents it.
var compactRaw = cmp.Transformer("compactRaw", func(r json.RawMessage) string {
	var b bytes.Buffer
	if err := json.Compact(&b, r); err != nil {
		return "invalid JSON: " + string(r)
	}
	return b.String()
})

// goldenCase is one representative value and its golden file,
// testdata/<file>.golden.
type goldenCase struct {
	name  string
	file  string
	value any
}

func goldenCases() []goldenCase {
	return []goldenCase{
		{"a namespaced target config carries profile, selection and scope", "TargetConfig", targetConfig()},
		{"a suspended cluster target config has no namespace", "TargetConfig-cluster", clusterTargetConfig()},
		{"an inventory config carries resolved bindings with durations as strings", "InventoryConfig", inventoryConfig()},
		{"a cluster inventory config carries dedupe, target refs and namespaces", "InventoryConfig-cluster", clusterInventoryConfig()},
		{"a sink config carries family, type, cluster and spec", "SinkConfig", sinkConfig()},
		{"a row is exactly the contract row", "Row", podRow()},
		{"a row key of a cluster target says so", "RowKey", nodeRow().Key()},
		{"a row entry wraps the row with generation and time", "RowEntry", RowEntry{Row: podRow(), TargetGeneration: 7, ObservedAt: t0}},
		{"an envelope is exactly the contract envelope", "Envelope", envelope()},
		{"a snapshot event carries the envelope inline with a delta", "SnapshotEvent", snapshotEventInline()},
		{"a periodic snapshot event references a large envelope in the object store", "SnapshotEvent-ref", snapshotEventRef()},
		{"a deletion snapshot event carries an empty envelope and the policy", "SnapshotEvent-deleted", snapshotEventDeleted()},
		{"a replayed snapshot event addresses one binding and carries no delta", "SnapshotEvent-replay", snapshotEventReplay()},
		{"a backfill's first revision carries the replay uid and the rewind marker", "SnapshotEvent-backfill", snapshotEventBackfill()},
		{"a target status report carries counts and the last error", "StatusReport-target", targetStatusReport()},
		{"a forbidden target status report carries reason and message", "StatusReport-forbidden", forbiddenStatusReport()},
		{"an inventory status report carries next due times per binding", "StatusReport-inventory", inventoryStatusReport()},
		{"an export status report carries a permanent failure", "StatusReport-export", exportStatusReport()},
		{"an export status report names a drift repair", "StatusReport-repaired", repairStatusReport()},
		{"a connection status report carries latency", "StatusReport-connection", connectionStatusReport()},
		{"export state records the last delivery per binding", "ExportState", exportState()},
		{"a held export state names the backfill that holds it", "ExportState-held", heldExportState()},
		{"a connection test request names the sink and its generation", "ConnectionTestRequest",
			ConnectionTestRequest{RequestID: "01J0K4Z8Q6", Sink: gitSink(), SinkGeneration: 4}},
		{"a connection test reply carries outcome and latency", "ConnectionTestReply",
			ConnectionTestReply{RequestID: "01J0K4Z8Q6", LatencyMs: 2003, Permanent: true,
				Outcome: Outcome{Reason: "ConnectionTestFailed", Message: "connect git.example.com:443: certificate signed by unknown authority"}}},
		{"a dead letter keeps subject, headers and reason", "DeadLetter", deadLetter()},
		{"a replay request names the inventory, the sink and a backfill range", "ReplayRequest", ReplayRequest{
			Namespace: "team-a", Name: "apps-backfill", UID: "0a1b2c3d-0000-4000-8000-00000000000f", Generation: 1,
			InventoryKind: KindInventory, Inventory: NamespacedName{Namespace: "team-a", Name: "apps"},
			Sink:     SinkRef{Family: FamilyDatabase, Namespace: "team-a", Name: "warehouse"},
			Backfill: true, FromRevision: 3, RequestedAt: t0, RequestedBy: "alice"}},
		{"a replay status report carries progress and a failure", "StatusReport-replay", StatusReport{
			Service: ServiceAggregator, Kind: KindReplay, Namespace: "team-a", Name: "apps-backfill", Generation: 1, ObservedAt: t0,
			Replay: &ReplayStatus{UID: "0a1b2c3d-0000-4000-8000-00000000000f", Phase: ReplayFailed, RevisionsTotal: 9,
				RevisionsDone: 4, LastRevision: 6, StartedAt: t0, FinishedAt: t0.Add(60e9), Attempts: 1,
				Outcome: Outcome{Reason: "ReplayFailed", Message: "revision 7 was not acknowledged by database/warehouse within 5m0s"}}}},
	}
}

func TestGolden(t *testing.T) {
	for _, tt := range goldenCases() {
		t.Run(tt.name, func(t *testing.T) {
			got, err := json.MarshalIndent(tt.value, "", "  ")
			if err != nil {
				t.Fatalf("marshal: %v", err)
			}
			got = append(got, '\n')
			path := filepath.Join("testdata", tt.file+".golden")
			want := golden.Check(t, path, got)
			back := reflect.New(reflect.TypeOf(tt.value))
			if err := json.Unmarshal(want, back.Interface()); err != nil {
				t.Fatalf("unmarshal golden file: %v", err)
			}
			if diff := cmp.Diff(tt.value, back.Elem().Interface(), compactRaw); diff != "" {
				t.Errorf("round trip through %s changed the value (-want +got):\n%s", path, diff)
			}
		})
	}
}
