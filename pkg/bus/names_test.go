package bus

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

var (
	teamApps  = busv1.NamespacedName{Namespace: "team-a", Name: "my.apps"}
	fleet     = busv1.NamespacedName{Name: "fleet"}
	gitMain   = busv1.SinkRef{Family: busv1.FamilySnapshot, Namespace: "team-a", Name: "git-main"}
	warehouse = busv1.SinkRef{Family: busv1.FamilyDatabase, Namespace: "kollect-system", Name: "warehouse"}
)

// roundTrip is one builder output and the parse that must invert it.
type roundTrip struct {
	name  string
	got   string
	want  string
	parse func(string) (any, error)
	value any
}

func subjectCases() []roundTrip {
	export := StatusAddress{Service: busv1.ServiceSnapshotExporter, Kind: busv1.KindInventory,
		Namespace: "team-a", Name: "my.apps", Sink: &gitMain}
	target := StatusAddress{Service: busv1.ServiceCollector, Kind: busv1.KindClusterTarget, Name: "nodes"}
	return []roundTrip{
		{"a namespaced inventory's snapshots have their own subject", SnapshotSubject(teamApps),
			"kollect.snapshots.team-a.my_apps", parseAny(ParseSnapshotSubject), teamApps},
		{"a cluster inventory's snapshots use the empty-namespace marker", SnapshotSubject(fleet),
			"kollect.snapshots.=cluster.fleet", parseAny(ParseSnapshotSubject), fleet},
		{"an object status subject names service, kind and object", StatusSubject(target),
			"kollect.status.collector.KollectClusterTarget.=cluster.nodes", parseAny(ParseStatusSubject), target},
		{"an export status subject adds the binding's sink", StatusSubject(export),
			"kollect.status.snapshot-exporter.KollectInventory.team-a.my_apps.snapshot.team-a.git-main",
			parseAny(ParseStatusSubject), export},
		{"connection tests have one subject per family", ConnTestSubject(busv1.FamilyEvent),
			"kollect.conntest.event", parseAny(ParseConnTestSubject), busv1.FamilyEvent},
		{"dead letters are per family and inventory", DeadLetterSubject(busv1.FamilyDatabase, fleet),
			"kollect.deadletter.database.=cluster.fleet", parseTwo(ParseDeadLetterSubject),
			[2]any{busv1.FamilyDatabase, fleet}},
	}
}

func keyCases() []roundTrip {
	cfg := ConfigRef{Kind: busv1.KindTarget, Namespace: "team-a", Name: "pods"}
	ccfg := ConfigRef{Kind: busv1.KindClusterInventory, Name: "fleet"}
	row := busv1.RowKey{TargetNamespace: "team-a", TargetName: "pods", UID: "5b0c1f6e-1d2a"}
	crow := busv1.RowKey{TargetName: "nodes", UID: "c1d2", ClusterTarget: true}
	return []roundTrip{
		{"a config key starts with the kind", ConfigKey(cfg), "KollectTarget.team-a.pods", parseAny(ParseConfigKey), cfg},
		{"a cluster kind's config key uses the empty-namespace marker", ConfigKey(ccfg),
			"KollectClusterInventory.=cluster.fleet", parseAny(ParseConfigKey), ccfg},
		{"a row key names target and uid", RowKey(row), "team-a.pods.5b0c1f6e-1d2a", parseAny(ParseRowKey), row},
		{"a cluster target's row key uses the empty-namespace marker", RowKey(crow), "=cluster.nodes.c1d2",
			parseAny(ParseRowKey), crow},
		{"an export-state key names inventory and sink", ExportStateKey(fleet, warehouse),
			"=cluster.fleet.database.kollect-system.warehouse", parseTwo(ParseExportStateKey), [2]any{fleet, warehouse}},
		{"a lease key is the service name", LeaseKey(busv1.ServiceAggregator), "aggregator",
			parseAny(DecodeToken), "aggregator"},
		{"an envelope object is named by inventory and revision", EnvelopeObjectName(teamApps, 42),
			"team-a.my_apps.42", parseTwo(ParseEnvelopeObjectName), [2]any{teamApps, uint64(42)}},
	}
}

func parseAny[T any](f func(string) (T, error)) func(string) (any, error) {
	return func(s string) (any, error) { return f(s) }
}

func parseTwo[A, B any](f func(string) (A, B, error)) func(string) (any, error) {
	return func(s string) (any, error) {
		a, b, err := f(s)
		return [2]any{a, b}, err
	}
}

func TestNamesRoundTrip(t *testing.T) {
	for _, tt := range append(subjectCases(), keyCases()...) {
		t.Run(tt.name, func(t *testing.T) {
			if tt.got != tt.want {
				t.Errorf("built %q, want %q", tt.got, tt.want)
			}
			got, err := tt.parse(tt.got)
			if err != nil {
				t.Fatalf("parse %q: %v", tt.got, err)
			}
			if diff := cmp.Diff(tt.value, got); diff != "" {
				t.Errorf("parse %q (-want +got):\n%s", tt.got, diff)
			}
		})
	}
}

func TestSubjectsAreValidPublishSubjects(t *testing.T) {
	for _, tt := range subjectCases() {
		t.Run(tt.name, func(t *testing.T) {
			if !server.IsValidPublishSubject(tt.got) {
				t.Errorf("%q is not a valid NATS publish subject", tt.got)
			}
		})
	}
}

func TestKeysAreValidKVKeys(t *testing.T) {
	for _, tt := range keyCases() {
		t.Run(tt.name, func(t *testing.T) {
			if !validKVKey.MatchString(tt.got) {
				t.Errorf("%q is not a valid KV key", tt.got)
			}
		})
	}
}

func TestStatusSubjectFor(t *testing.T) {
	tests := []struct {
		name   string
		report busv1.StatusReport
		want   string
	}{
		{"a target report goes to the target's subject",
			busv1.StatusReport{Service: busv1.ServiceCollector, Kind: busv1.KindTarget, Namespace: "team-a", Name: "pods",
				Target: &busv1.TargetStatus{}},
			"kollect.status.collector.KollectTarget.team-a.pods"},
		{"an export report goes to its binding's subject",
			busv1.StatusReport{Service: busv1.ServiceDatabaseExporter, Kind: busv1.KindClusterInventory, Name: "fleet",
				Export: &busv1.ExportStatus{Sink: warehouse}},
			"kollect.status.database-exporter.KollectClusterInventory.=cluster.fleet.database.kollect-system.warehouse"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := StatusSubjectFor(tt.report); got != tt.want {
				t.Errorf("StatusSubjectFor() = %q, want %q", got, tt.want)
			}
		})
	}
}
