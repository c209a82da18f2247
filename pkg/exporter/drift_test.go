package exporter_test

import (
	"testing"

	"github.com/prometheus/client_golang/prometheus"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink/memory"
)

// deliveredThenDamaged exports revision 1 of a, b and c to sink "good",
// then damages the store with damage, as a user editing the sink by hand.
func deliveredThenDamaged(t *testing.T, damage func(*memory.Stored)) (*env, *prometheus.Registry) {
	t.Helper()
	e := newEnv(t, "good")
	reg := prometheus.NewRegistry()
	e.start(func(c *exporter.Config) { c.Metrics = reg })
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a", "b", "c")
	waitFor(t, "revision 1", func() bool { return e.stored("good") == 1 })
	waitFor(t, "revision 1 reported", func() bool { s := e.status("good"); return s != nil && s.Revision == 1 })
	// Its delivery finished (the status is reported before the ack): a
	// periodic event of the same revision arriving meanwhile may be folded
	// into it instead of checked.
	waitFor(t, "revision 1 acknowledged", func() bool { return e.ackPending() == 0 })
	e.b.stores["good"].Edit("east", inv, damage)
	return e, reg
}

func TestAPeriodicEventRepairsADamagedSink(t *testing.T) {
	for _, tc := range []struct {
		name   string
		damage func(*memory.Stored)
		drift  string
	}{
		{"a row deleted by hand is restored", func(s *memory.Stored) { s.Rows = s.Rows[:2] }, "2 rows, want 3"},
		{"a row edited by hand is restored", func(s *memory.Stored) { s.Rows[1].Attributes = map[string]any{"x": "edited"} },
			"row content changed"},
		{"a projection of an older revision is restored", func(s *memory.Stored) { s.Revision = 0 },
			"holds revision 0"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			e, reg := deliveredThenDamaged(t, tc.damage)
			before := e.status("good").LastExportTime
			e.publish(1, busv1.ReasonPeriodic, []string{"good"}, "a", "b", "c")
			waitFor(t, "the repair reported", func() bool { s := e.status("good"); return s != nil && s.Repaired != "" })
			got, _ := e.b.stores["good"].Get("east", inv)
			if len(got.Rows) != 3 || got.Rows[1].UID != "b" || len(got.Rows[1].Attributes) != 0 || got.Revision != 1 {
				t.Fatalf("store holds revision %d rows %+v after the repair, want revision 1 rows a, b, c unedited", got.Revision, got.Rows)
			}
			ws := e.b.stores["good"].Writes()
			if last := ws[len(ws)-1]; len(ws) != 2 || !last.Repair || last.Delta {
				t.Fatalf("store writes %+v, want the first write and one full repair", ws)
			}
			st := e.status("good")
			if !st.OK || st.Revision != 1 || !st.LastExportTime.After(before) || st.Repaired[:len(tc.drift)] != tc.drift {
				t.Fatalf("status %+v, want revision 1 OK, exported after %v, repaired %q", st, before, tc.drift)
			}
			if n := counterValue(t, reg, exporter.NameDriftRepairs, "type", "memory"); n != 1 {
				t.Fatalf("%s = %v, want 1", exporter.NameDriftRepairs, n)
			}
			if n := counterValue(t, reg, exporter.NameDriftChecks, "result", exporter.DriftFound); n != 1 {
				t.Fatalf("%s{result=%s} = %v, want 1", exporter.NameDriftChecks, exporter.DriftFound, n)
			}
		})
	}
}

func TestAPeriodicEventLeavesAnUndamagedSinkAlone(t *testing.T) {
	e, reg := deliveredThenDamaged(t, func(*memory.Stored) {})
	e.publish(1, busv1.ReasonPeriodic, []string{"good"}, "a", "b", "c")
	waitFor(t, "the drift check", func() bool {
		return counterValue(t, reg, exporter.NameDriftChecks, "result", exporter.DriftInSync) == 1
	})
	waitFor(t, "the periodic event acknowledged", func() bool { return e.ackPending() == 0 })
	if ws := e.b.stores["good"].Writes(); len(ws) != 1 {
		t.Fatalf("store writes %+v, want only the first", ws)
	}
	if calls := e.b.callsOf("good"); len(calls) != 1 {
		t.Fatalf("runtime wrote revisions %v, want only the first write", calls)
	}
	if n := counterValue(t, reg, exporter.NameDriftRepairs); n != 0 {
		t.Fatalf("%s = %v, want 0", exporter.NameDriftRepairs, n)
	}
}

func TestARedeliveredChangeIsNotCheckedForDrift(t *testing.T) {
	e, reg := deliveredThenDamaged(t, func(s *memory.Stored) { s.Rows = s.Rows[:1] })
	e.publish(1, busv1.ReasonChange, []string{"good"}, "a", "b", "c")
	waitFor(t, "the redelivery acknowledged", func() bool { return e.ackPending() == 0 })
	if n := counterValue(t, reg, exporter.NameDriftChecks); n != 0 {
		t.Fatalf("%s = %v after a redelivered change, want 0", exporter.NameDriftChecks, n)
	}
	if got, _ := e.b.stores["good"].Get("east", inv); len(got.Rows) != 1 {
		t.Fatalf("store holds %d rows, want the damaged 1: a change redelivery is skipped", len(got.Rows))
	}
}
