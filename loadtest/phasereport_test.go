package loadtest

import (
	"bytes"
	"context"
	"math"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// syntheticRun is a finished run of 1,000 objects whose sampler saw the
// phases below; the processes' CPU split is set by hand.
func syntheticRun() *run {
	marks := []phaseMark{
		{Name: "create", At: 0, Load: [3]float64{1, 1, 1}},
		{Name: "initial sync", At: 10, Load: [3]float64{2, 1, 1}},
		{Name: "idle", At: 20, Load: [3]float64{3, 1, 1}},
		{Name: "changes", At: 30, Load: [3]float64{4, 2, 1}},
		{Name: "deletes", At: 40, Load: [3]float64{5, 2, 1}},
		{Name: "end", At: 45, Load: [3]float64{6, 2, 1}},
		{Name: "collect", At: 50, Load: [3]float64{7, 3, 1}},
	}
	s := &sampler{phases: marks, load: []Point{{5, 1.5}, {35, 9}, {55, 6}},
		busBytes: map[string][]Point{busTotal: {{15, 1e6}, {20, 2e6}, {32, 5e6}, {38, 3e6}, {42, 2.5e6}},
			"OBJ_x": {{15, 0}, {20, 1e6}, {32, 4e6}, {38, 2e6}, {42, 1.5e6}}}}
	r := &run{c: Config{Objects: 1000}, s: s, res: &Result{Delete: Delete{Count: 10}}}
	for range 100 {
		r.res.Changes = append(r.res.Changes, &Change{Start: time.Unix(1, 0)})
	}
	r.res.Changes = append(r.res.Changes, &Change{}) // never made: the run stopped
	r.res.Processes = []Process{
		{Name: "collector", CPUByPhase: map[string]float64{"initial sync": 2, "idle": 0.1, "changes": 0.6, "deletes": 0.05}},
		{Name: "aggregator", CPUByPhase: map[string]float64{"initial sync": 1, "idle": 0.1, "changes": 0.4, "deletes": 0.05}},
		{Name: "etcd", CPUByPhase: map[string]float64{"create": 4, "initial sync": 5, "changes": 1}},
	}
	return r
}

func near(a, b float64) bool { return math.Abs(a-b) < 1e-9 }

func TestPhasesSplitKollectsCPUPerUnitOfWorkAndNetOfIdle(t *testing.T) {
	r := syntheticRun()
	got := map[string]Phase{}
	for _, ph := range r.phases(60, [3]float64{8, 3, 1}) {
		got[ph.Name] = ph
	}
	if _, ok := got["end"]; ok || len(got) != 6 {
		t.Fatalf("phases %v: want the six phases without end", got)
	}
	for _, tc := range []struct {
		phase              string
		wall, kollect, all float64
		perUnit, net       float64 // ms; net -1 when there is none
		loadEnd, loadMax   float64
		busPeak            float64
	}{
		{"create", 10, 0, 4, 0, -1, 2, 2, 0},
		{"initial sync", 10, 3, 8, 3, 2.8, 3, 3, 2e6},
		{"idle", 10, 0.2, 0.2, 20, -1, 4, 4, 2e6},
		{"changes", 10, 1, 2, 10, 8, 5, 9, 5e6},
		{"deletes", 5, 0.1, 0.1, 10, 0, 6, 6, 2.5e6},
		{"collect", 10, 0, 0, 0, -1, 8, 8, 0},
	} {
		ph := got[tc.phase]
		if !near(ph.Seconds, tc.wall) || !near(ph.KollectCPU, tc.kollect) || !near(ph.AllCPU, tc.all) {
			t.Errorf("%s: wall %v, Kollect CPU %v, all CPU %v; want %v, %v, %v", tc.phase, ph.Seconds, ph.KollectCPU, ph.AllCPU,
				tc.wall, tc.kollect, tc.all)
		}
		if !near(ph.KollectCPUPerUnitMs, tc.perUnit) {
			t.Errorf("%s: %v ms per %s, want %v", tc.phase, ph.KollectCPUPerUnitMs, ph.Unit, tc.perUnit)
		}
		if (tc.net < 0) != (ph.NetOfIdleMs == nil) || (ph.NetOfIdleMs != nil && !near(*ph.NetOfIdleMs, tc.net)) {
			t.Errorf("%s: net of idle %v, want %v", tc.phase, ph.NetOfIdleMs, tc.net)
		}
		if !near(ph.LoadEnd[0], tc.loadEnd) || !near(ph.LoadMax, tc.loadMax) {
			t.Errorf("%s: load end %v max %v, want %v and %v", tc.phase, ph.LoadEnd[0], ph.LoadMax, tc.loadEnd, tc.loadMax)
		}
		if !near(ph.BusBytesPeak, tc.busPeak) {
			t.Errorf("%s: bus peak %v, want %v", tc.phase, ph.BusBytesPeak, tc.busPeak)
		}
	}
	if ch := got["changes"]; ch.Units != 100 || ch.Unit != "change" {
		t.Errorf("changes counted %v %ss, want the 100 made", ch.Units, ch.Unit)
	}
}

func TestTheReportShowsPhasesBusStorageAndTheCPUTargets(t *testing.T) {
	r := syntheticRun()
	r.res.Mode = "system"
	r.res.Phases = r.phases(60, [3]float64{8, 3, 1})
	r.res.Bus = r.busStreams()
	r.res.Targets = r.targets()
	md := markdown(r.res, "x")
	for _, want := range []string{
		"## Phases", "| changes | 10.0 | 1.00 | 10.000 ms/change (100) | 8.000 ms/change | 2.0 | 4.00 → 5.00 (9.00) | 5.0 / 3.0 |",
		"## Bus storage", "| `OBJ_x` | 1.00 | 4.00 | 1.50 |", "| **total** | 2.00 | 5.00 | 2.50 |",
		"| Kollect CPU per one-object change (net of idle) | ≤ 2 ms | 8 ms | no |",
		"| Kollect CPU per object, initial sync | ≤ 0.5 ms | 3 ms | no |",
	} {
		if !strings.Contains(md, want) {
			t.Errorf("report lacks %q:\n%s", want, md)
		}
	}
}

func TestStorageSamplesReadWhatTheBusStores(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx := context.Background()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	obs, err := n.JS.ObjectStore(ctx, bus.ObjectStoreEnvelopes)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := obs.PutBytes(ctx, "big", bytes.Repeat([]byte("x"), 1<<20)); err != nil {
		t.Fatal(err)
	}
	s, err := newSampler(time.Now(), n.URL)
	if err != nil {
		t.Fatal(err)
	}
	s.sampleStorage(ctx, 1)
	stream := bus.ObjectStoreStreamName(bus.ObjectStoreEnvelopes)
	if got := lastIn(s.busBytes[stream], 1); got < 1<<20 {
		t.Errorf("%s stores %v bytes, want at least the 1 MiB object", stream, got)
	}
	if total, obj := lastIn(s.busBytes[busTotal], 1), lastIn(s.busBytes[stream], 1); total < obj || len(s.busBytes) < 3 {
		t.Errorf("total %v for %d series: want the sum over every stream", total, len(s.busBytes))
	}
}

func TestLoadAverageIsRead(t *testing.T) {
	l, ok := loadavg3()
	if !ok || l[0] < 0 || l[1] < 0 || l[2] < 0 {
		t.Errorf("loadavg3() = %v, %v", l, ok)
	}
}
