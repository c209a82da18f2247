package loadtest

import (
	"bufio"
	"fmt"
	"net/http"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"time"

	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/pkg/childproc"
	"kollect.dev/kollect/pkg/testenv"
)

// Replica is what one collector or aggregator replica did in a run.
type Replica struct {
	Role string `json:"role"` // collector or aggregator
	Name string `json:"name"` // its process name in Processes
	// Leader is its kollect_<role>_leader gauge at the end.
	Leader bool `json:"leader"`
	// Units are the Targets (collector) or inventories (aggregator) it
	// holds, from the gauge replicaUnitMetric names; -1 when the service
	// exports none.
	Units float64 `json:"units"`
	// Rows are the rows of those Targets or inventories, from the gauge
	// replicaRowsMetric names; -1 when the service exports none.
	Rows float64 `json:"rows"`
	// Work is its rows: row writes (collector) or row updates taken into
	// snapshots (aggregator); Share its part of the role's Work.
	Work  float64 `json:"work"`
	Share float64 `json:"share"`
	// CPUSeconds and PeakRSSMiB are the process's.
	CPUSeconds float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
}

// maxReplicaShare is the most of its role's work one replica may carry.
const maxReplicaShare = 0.6

// The metrics a replica's work is read from, in one place (the sharded
// services' names: services/collector/internal/metrics and
// services/aggregator/internal/engine/metrics*.go). replicaWorkMetric
// counts a replica's row writes or updates; replicaUnitMetric is the gauge
// of the Targets or inventories it holds and replicaRowsMetric of their
// rows (exported once the services are sharded; absent before, summed
// over the shards' series).
var (
	replicaWorkMetric = map[string]string{"collector": "kollect_collector_row_writes_total", "aggregator": "kollect_aggregator_row_updates_total"}
	replicaUnitMetric = map[string]string{"collector": "kollect_collector_targets", "aggregator": "kollect_aggregator_shard_inventories"}
	replicaRowsMetric = map[string]string{"collector": "kollect_collector_rows", "aggregator": "kollect_aggregator_shard_rows"}
)

// replicaName names replica i of role: the first keeps the service's name.
func replicaName(role string, i int) string {
	if i == 0 {
		return role
	}
	return role + "-" + strconv.Itoa(i)
}

// replicaFlags are the flags of replica i of n of role: every collector
// replica works on its share of the shards (pkg/shard).
func replicaFlags(role string, i, n int) []string {
	if n < 2 {
		return nil
	}
	id := "--leader-election-identity=" + replicaName(role, i)
	if role == "collector" {
		return []string{"--leader-elect=true", id}
	}
	return []string{id}
}

// replicaCounts are the replicas of each role the run starts.
func (r *run) replicaCounts() map[string]int {
	return map[string]int{"collector": max(1, r.c.CollectorReplicas), "aggregator": max(1, r.c.AggregatorReplicas)}
}

// extraReplicas starts replicas 1..n-1 of the collector and aggregator (the
// first of each is demo.StartServicesWith's) with the first's flags;
// their unexpected exits arrive on exits.
func (r *run) extraReplicas(extra map[string][]string, exits chan<- error) ([]*childproc.Process, error) {
	var out []*childproc.Process
	for role, n := range r.replicaCounts() {
		for i := 1; i < n; i++ {
			name := replicaName(role, i)
			port, err := testenv.FreePort()
			if err != nil {
				return out, err
			}
			r.metrics[name] = port
			args := append(demo.Args(role, r.svc), extra[role]...)
			args = append(args, replicaFlags(role, i, n)...)
			args = append(args, "--metrics-bind-address=127.0.0.1:"+strconv.Itoa(port), "--metrics-secure=false")
			pp, err := r.pprofFlag(name) // after the first's: the last flag wins
			if err != nil {
				return out, err
			}
			args = append(args, pp...)
			if l := r.res.Settings.MemoryLimits[role]; l != "" {
				args = append(args, "--memory-limit="+l)
			}
			logPath := filepath.Join(r.logDir(), name+".log")
			p, err := childproc.Start(name, logPath, syscall.SIGTERM, exec.Command(filepath.Join(r.c.BinDir, role), args...))
			if err != nil {
				return out, err
			}
			go func() {
				<-p.Done()
				exits <- fmt.Errorf("%s exited: %v; %s", name, p.Err(), p.Tail(20))
			}()
			out = append(out, p)
			r.s.watch(name, p.Cmd.Process.Pid)
		}
	}
	return out, nil
}

// stopReplicas stops the extra replicas.
func stopReplicas(ps []*childproc.Process) {
	for _, p := range ps {
		p.Grace = 20 * time.Second
		_ = p.Stop()
	}
}

// replicas reads every collector and aggregator replica's metrics.
func (r *run) replicas() []Replica {
	var out []Replica
	for role, n := range r.replicaCounts() {
		var total float64
		start := len(out)
		for i := range n {
			name := replicaName(role, i)
			m, err := scrape(r.metrics[name])
			if err != nil {
				r.step("metrics of %s: %v", name, err)
			}
			rep := Replica{Role: role, Name: name, Leader: m["kollect_"+role+"_leader"] > 0, Work: m[replicaWorkMetric[role]], Units: -1, Rows: -1}
			if v, ok := m[replicaUnitMetric[role]]; ok {
				rep.Units = v
			}
			if v, ok := m[replicaRowsMetric[role]]; ok {
				rep.Rows = v
			}
			total += rep.Work
			out = append(out, rep)
		}
		for i := start; i < len(out); i++ {
			if total > 0 {
				out[i].Share = out[i].Work / total
			}
		}
	}
	return out
}

// scrape returns the sum of every series of each metric a service exports.
func scrape(port int) (map[string]float64, error) {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(fmt.Sprintf("http://127.0.0.1:%d/metrics", port))
	if err != nil {
		return nil, err
	}
	defer resp.Body.Close()
	out := map[string]float64{}
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") {
			continue
		}
		name, rest, ok := strings.Cut(line, " ")
		if !ok {
			continue
		}
		name, _, _ = strings.Cut(name, "{")
		if i := strings.LastIndexByte(line, ' '); i > 0 {
			rest = line[i+1:]
		}
		if v, err := strconv.ParseFloat(rest, 64); err == nil {
			out[name] += v
		}
	}
	return out, sc.Err()
}

// withProcessStats fills the replicas' CPU and peak RSS from the sampled
// processes.
func withProcessStats(reps []Replica, procs []Process) {
	for i := range reps {
		for _, p := range procs {
			if p.Name == reps[i].Name {
				reps[i].CPUSeconds, reps[i].PeakRSSMiB = p.CPUSeconds, p.PeakRSSMiB
			}
		}
	}
}

// replicaChecks are the balance targets: per role with more than one
// replica, the largest share of its rows one replica carried.
func replicaChecks(reps []Replica) []TargetCheck {
	top := map[string]float64{}
	count := map[string]int{}
	for _, rep := range reps {
		top[rep.Role] = max(top[rep.Role], rep.Share)
		count[rep.Role]++
	}
	var out []TargetCheck
	for _, role := range []string{"collector", "aggregator"} {
		if count[role] > 1 {
			out = append(out, TargetCheck{Name: fmt.Sprintf("largest share of the %s replicas' rows", role),
				Target: 100 * maxReplicaShare, Got: 100 * top[role], Unit: "%", Met: top[role] > 0 && top[role] <= maxReplicaShare})
		}
	}
	return out
}
