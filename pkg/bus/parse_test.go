package bus

import (
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

func TestParseRejectsForeignNames(t *testing.T) {
	tests := []struct {
		name  string
		parse func(string) (any, error)
		in    string
	}{
		{"a snapshot subject with too few tokens", parseAny(ParseSnapshotSubject), "kollect.snapshots.team-a"},
		{"a snapshot subject with too many tokens", parseAny(ParseSnapshotSubject), "kollect.snapshots.a.b.c"},
		{"a status subject parsed as a snapshot subject", parseAny(ParseSnapshotSubject), "kollect.status.a.b"},
		{"a snapshot subject of another root", parseAny(ParseSnapshotSubject), "other.snapshots.a.b"},
		{"a snapshot subject with an invalid token", parseAny(ParseSnapshotSubject), "kollect.snapshots.a=zz.b"},
		{"a snapshot subject with a wildcard", parseAny(ParseSnapshotSubject), "kollect.snapshots.*.b"},
		{"a status subject of five names", parseAny(ParseStatusSubject), "kollect.status.a.b.c.d.e"},
		{"a status subject of eight names", parseAny(ParseStatusSubject), "kollect.status.a.b.c.d.e.f.g.h"},
		{"a connection-test subject with a namespace", parseAny(ParseConnTestSubject), "kollect.conntest.event.ns"},
		{"a dead-letter subject without inventory", parseTwo(ParseDeadLetterSubject), "kollect.deadletter.event.ns"},
		{"a config key of a kind without config", parseAny(ParseConfigKey), "KollectProfile.team-a.pods"},
		{"a config key without namespace token", parseAny(ParseConfigKey), "KollectTarget.pods"},
		{"a row key with an empty token", parseAny(ParseRowKey), "team-a..uid"},
		{"an export-state key of four tokens", parseTwo(ParseExportStateKey), "a.b.c.d"},
		{"an envelope object name without revision", parseTwo(ParseEnvelopeObjectName), "team-a.apps"},
		{"an envelope object name with a signed revision", parseTwo(ParseEnvelopeObjectName), "team-a.apps.+4"},
		{"an envelope object name with a zero-padded revision", parseTwo(ParseEnvelopeObjectName), "team-a.apps.042"},
		{"an envelope object name with no dot", parseTwo(ParseEnvelopeObjectName), "apps"},
		{"the config-complete marker", parseAny(ParseConfigKey), ConfigCompleteKey},
		{"the config-complete marker with a name appended", parseAny(ParseConfigKey), ConfigCompleteKey + ".x"},
		{"the rows-synced marker", parseAny(ParseRowKey), RowsSyncedKey},
		{"the rows-synced marker with a uid appended", parseAny(ParseRowKey), RowsSyncedKey + ".uid"},
		{"the rows-synced marker as an export-state key", parseTwo(ParseExportStateKey), RowsSyncedKey + ".c.d.e"},
		{"a shard's rows-synced marker", parseAny(ParseRowKey), RowsSyncedShardKey(8, 3)},
	}
	for _, tt := range tests {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			if got, err := tt.parse(tt.in); err == nil {
				t.Errorf("parse %q = %v, want an error", tt.in, got)
			}
		})
	}
}

// FuzzNamesRoundTrip checks every builder against its parse for arbitrary
// namespaces, names and revisions.
func FuzzNamesRoundTrip(f *testing.F) {
	f.Add("team-a", "my.apps", "uid-1", uint64(1))
	f.Add("", "fleet", "", uint64(0))
	f.Add("a.b", "=cluster", "_.*>", ^uint64(0))
	f.Fuzz(func(t *testing.T, ns, name, other string, rev uint64) {
		inv := busv1.NamespacedName{Namespace: ns, Name: name}
		sink := busv1.SinkRef{Family: busv1.Family(other), Namespace: name, Name: ns}
		if got, err := ParseSnapshotSubject(SnapshotSubject(inv)); err != nil || got != inv {
			t.Errorf("snapshot subject of %+v parses to %+v, %v", inv, got, err)
		}
		addr := StatusAddress{Service: busv1.Service(other), Kind: busv1.Kind(name), Namespace: ns, Name: other, Sink: &sink}
		if got, err := ParseStatusSubject(StatusSubject(addr)); err != nil || *got.Sink != sink || got.Name != other {
			t.Errorf("status subject of %+v parses to %+v, %v", addr, got, err)
		}
		row := busv1.RowKey{TargetNamespace: ns, TargetName: name, UID: other, ClusterTarget: ns == ""}
		if got, err := ParseRowKey(RowKey(row)); err != nil || got != row {
			t.Errorf("row key of %+v parses to %+v, %v", row, got, err)
		}
		gotInv, gotSink, err := ParseExportStateKey(ExportStateKey(inv, sink))
		if err != nil || gotInv != inv || gotSink != sink {
			t.Errorf("export-state key of %+v %+v parses to %+v %+v, %v", inv, sink, gotInv, gotSink, err)
		}
		gotInv, gotRev, err := ParseEnvelopeObjectName(EnvelopeObjectName(inv, rev))
		if err != nil || gotInv != inv || gotRev != rev {
			t.Errorf("envelope object of %+v@%d parses to %+v@%d, %v", inv, rev, gotInv, gotRev, err)
		}
	})
}

func TestRowsSyncedShardKey(t *testing.T) {
	t.Run("round-trips", func(t *testing.T) {
		n, i, ok := ParseRowsSyncedShardKey(RowsSyncedShardKey(8, 3))
		if !ok || n != 8 || i != 3 {
			t.Errorf("parse = %d, %d, %v; want 8, 3, true", n, i, ok)
		}
	})
	for _, key := range []string{RowsSyncedKey, RowsSyncedKey + ".8", RowsSyncedKey + ".8.8", RowsSyncedKey + ".0.0",
		RowsSyncedKey + ".8.-1", RowsSyncedKey + ".08.3", RowsSyncedKey + ".8.3.x", ConfigCompleteKey + ".8.3"} {
		t.Run("rejects "+key, func(t *testing.T) {
			if n, i, ok := ParseRowsSyncedShardKey(key); ok {
				t.Errorf("parse = %d, %d, true; want false", n, i)
			}
		})
	}
}
