package loadtest

import (
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"testing"
)

// No replica may carry more than 60 % of its role's rows; a role of one
// replica is not checked.
func TestReplicaBalanceCheck(t *testing.T) {
	for _, tc := range []struct {
		name   string
		shares []float64 // collector replicas'
		met    bool
	}{
		{"one leads, two stand by", []float64{1, 0, 0}, false},
		{"spread", []float64{0.4, 0.3, 0.3}, true},
		{"just over", []float64{0.61, 0.39}, false},
		{"no work", []float64{0, 0}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			reps := []Replica{{Role: "aggregator", Name: "aggregator", Share: 1}}
			for i, s := range tc.shares {
				reps = append(reps, Replica{Role: "collector", Name: replicaName("collector", i), Share: s})
			}
			checks := replicaChecks(reps)
			if len(checks) != 1 {
				t.Fatalf("checks %+v, want the collectors' only", checks)
			}
			if checks[0].Met != tc.met {
				t.Fatalf("%+v: met %v, want %v", checks[0], checks[0].Met, tc.met)
			}
		})
	}
}

// scrape sums every series of a metric; replicas reads the work, leader
// and units of each replica from its metrics, and a replica's CPU counts
// as Kollect's.
func TestReplicasAreReadFromTheirMetrics(t *testing.T) {
	serve := func(body string) int {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) { fmt.Fprint(w, body) }))
		t.Cleanup(srv.Close)
		return srv.Listener.Addr().(*net.TCPAddr).Port
	}
	r := &run{c: Config{CollectorReplicas: 2, AggregatorReplicas: 1}, out: testLog{t}, metrics: map[string]int{
		"collector":   serve("# HELP x\nkollect_collector_leader 1\nkollect_collector_row_writes_total{op=\"put\"} 30\nkollect_collector_row_writes_total{op=\"delete\"} 10\nkollect_collector_targets 7\nkollect_collector_rows 300\n"),
		"collector-1": serve("kollect_collector_leader 0\nkollect_collector_row_writes_total{op=\"put\"} 60\n"),
		"aggregator":  serve("kollect_aggregator_leader 1\nkollect_aggregator_row_updates_total 5\n"),
	}}
	got := map[string]Replica{}
	for _, rep := range r.replicas() {
		got[rep.Name] = rep
	}
	if c := got["collector"]; !c.Leader || c.Work != 40 || c.Units != 7 || c.Rows != 300 || c.Share != 0.4 {
		t.Errorf("collector: %+v", c)
	}
	if c := got["collector-1"]; c.Leader || c.Work != 60 || c.Units != -1 || c.Rows != -1 || c.Share != 0.6 {
		t.Errorf("collector-1: %+v", c)
	}
	if a := got["aggregator"]; !a.Leader || a.Work != 5 || a.Share != 1 {
		t.Errorf("aggregator: %+v", a)
	}
	if !isKollect("collector-1") || !isKollect("aggregator") || isKollect("nats-0") {
		t.Error("isKollect does not count the replicas, or counts a NATS node")
	}
}
