package loadtest

import (
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"

	"kollect.dev/kollect/pkg/testenv"
)

// Result is everything one run measured; the JSON report is this value.
type Result struct {
	Tier     string            `json:"tier"`
	Date     string            `json:"date"`
	Mode     string            `json:"mode"`
	Settings Settings          `json:"settings"`
	Machine  Machine           `json:"machine"`
	Versions map[string]string `json:"versions"`

	CreateSeconds float64 `json:"createSeconds"`
	// InitialSync is from applying the Kollect resources (the services
	// were started just before) to all rows / files present.
	InitialSync InitialSync `json:"initialSync"`
	Postgres    Latency     `json:"changeToPostgres"`
	Git         Latency     `json:"changeToGit"`
	ChangesSecs float64     `json:"changesSeconds"`
	Delete      Delete      `json:"delete"`

	// Phases hold each phase's wall time, CPU (Kollect's and all), load
	// average and bus storage.
	Phases    []Phase            `json:"phases"`
	Processes []Process          `json:"processes"`
	Backlog   map[string]float64 `json:"backlogMax"`
	Collect   []CollectRun       `json:"collect,omitempty"`
	Targets   []TargetCheck      `json:"targets"`
	// Bus is what the services published to the bus: per one-object
	// change, and during the initial sync over the snapshot's bytes.
	BusWrites BusWrites `json:"busWrites"`
	// Replicas are the collector and aggregator replicas' work.
	Replicas []Replica `json:"replicas,omitempty"`
	Notes    []string  `json:"notes,omitempty"`

	PhaseStarts   map[string]float64 `json:"phaseStarts"`
	RSS           map[string][]Point `json:"rssSeries"`
	BacklogSeries map[string][]Point `json:"backlogSeries"`
	// Bus is the storage of each bus stream at phase boundaries; BusSeries
	// its samples (bytes per stream and "total").
	Bus       []BusStream        `json:"busStorage"`
	BusSeries map[string][]Point `json:"busBytesSeries"`
	Changes   []*Change          `json:"changes,omitempty"`
}

// Settings are the run's knobs.
type Settings struct {
	Objects     int `json:"objects"`
	ConfigMaps  int `json:"configMaps"`
	Deployments int `json:"deployments"`
	Namespaces  int `json:"namespaces"`
	// Inventories counts every inventory, the cluster inventory included;
	// Shape says how the Targets and inventories divide the load, and
	// ObjectsByKind the objects of each kind.
	Inventories   int            `json:"inventories"`
	Shape         Shape          `json:"shape"`
	ObjectsByKind map[string]int `json:"objectsByKind,omitempty"`
	Workers       int            `json:"workers"`
	QPS           float32        `json:"qps"`
	Changes       int            `json:"changes"`
	ChangeRate    float64        `json:"changeRate"`
	Deletes       int            `json:"deletes"`
	AvgBytes      int            `json:"avgObjectBytes"`
	IdleSeconds   float64        `json:"idleSeconds"`
	// Source is where the objects live: "" (the real API server) or "sim"
	// (loadtest/simsource).
	Source string `json:"source,omitempty"`
	// NATSNodes is the size of the bus's JetStream cluster;
	// StreamReplicas counts its streams (buckets and object stores
	// included) by their replica count at the end of the run.
	NATSNodes      int         `json:"natsNodes,omitempty"`
	StreamReplicas map[int]int `json:"streamReplicas,omitempty"`
	// MemoryLimits are the services' --memory-limit (their Go soft limit is
	// 85% of it).
	MemoryLimits map[string]string `json:"memoryLimits"`
}

// BusStream is the bytes one JetStream stream (or "total") stores: at the
// end of the initial sync, at its highest during the changes and at the
// end of the run.
type BusStream struct {
	Name             string  `json:"name"`
	AfterInitialSync float64 `json:"afterInitialSync"`
	PeakInChanges    float64 `json:"peakInChanges"`
	End              float64 `json:"end"`
}

// InitialSync times the first full export.
type InitialSync struct {
	PostgresSeconds float64 `json:"postgresSeconds"`
	GitSeconds      float64 `json:"gitSeconds"`
	Rows            int     `json:"rows"`
	Files           int     `json:"files"`
}

// Delete times delete propagation.
type Delete struct {
	Count           int     `json:"count"`
	PostgresSeconds float64 `json:"postgresSeconds"`
	GitSeconds      float64 `json:"gitSeconds"`
}

// Process is one process's peak memory and CPU.
type Process struct {
	Name       string             `json:"name"`
	PeakRSSMiB float64            `json:"peakRSSMiB"`
	CPUSeconds float64            `json:"cpuSeconds"`
	CPUByPhase map[string]float64 `json:"cpuByPhase"`
}

// BusWrites are the bytes the services published to the bus (client
// connections of every NATS node, each byte counted once however many
// replicas a stream keeps): JetStream writes plus their API requests and
// acknowledgements.
type BusWrites struct {
	// PerChangeBytes is the change phase's bytes per one-object change.
	PerChangeBytes float64 `json:"perChangeBytes"`
	// InitialSyncBytes are the initial sync's; SnapshotBytes the sum of
	// the inventories' snapshot sizes after it (the aggregators'
	// kollect_aggregator_snapshot_bytes) and InitialSyncRatio the first
	// over the second.
	InitialSyncBytes float64 `json:"initialSyncBytes"`
	SnapshotBytes    float64 `json:"snapshotBytes"`
	InitialSyncRatio float64 `json:"initialSyncRatio"`
}

// TargetCheck compares one issue target with what the run reached.
type TargetCheck struct {
	Name   string  `json:"name"`
	Target float64 `json:"target"`
	Got    float64 `json:"got"`
	Unit   string  `json:"unit"`
	Met    bool    `json:"met"`
}

// Machine describes where the run happened.
type Machine struct {
	CPUModel  string `json:"cpuModel"`
	CPUs      int    `json:"cpus"`
	MemoryGiB string `json:"memory"`
	Kernel    string `json:"kernel"`
	GoVersion string `json:"goVersion"`
	LoadStart string `json:"loadAverageStart"`
	LoadEnd   string `json:"loadAverageEnd"`
}

func machine() Machine {
	m := Machine{CPUs: runtime.NumCPU(), GoVersion: runtime.Version(), LoadStart: loadavg()}
	if b, err := os.ReadFile("/proc/cpuinfo"); err == nil {
		for _, l := range strings.Split(string(b), "\n") {
			if k, v, ok := strings.Cut(l, ":"); ok && strings.TrimSpace(k) == "model name" {
				m.CPUModel = strings.TrimSpace(v)
				break
			}
		}
	}
	if b, err := os.ReadFile("/proc/meminfo"); err == nil {
		if l, _, ok := strings.Cut(string(b), "\n"); ok {
			if f := strings.Fields(l); len(f) > 1 {
				kb, _ := strconv.ParseFloat(f[1], 64)
				m.MemoryGiB = strconv.FormatFloat(kb/1024/1024, 'f', 1, 64) + " GiB"
			}
		}
	}
	if b, err := os.ReadFile("/proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
	return m
}

func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return ""
	}
	f := strings.Fields(string(b))
	return strings.Join(f[:min(3, len(f))], " ")
}

// versions returns the versions of the peers and of Kollect itself.
func versions(root string) map[string]string {
	v := map[string]string{}
	run := func(key string, name string, args ...string) {
		if out, err := exec.Command(name, args...).CombinedOutput(); err == nil {
			line, _, _ := strings.Cut(strings.TrimSpace(string(out)), "\n")
			v[key] = line
		}
	}
	if p, err := testenv.Tool("envtest/kube-apiserver"); err == nil {
		run("kube-apiserver", p, "--version")
		run("etcd", filepath.Join(filepath.Dir(p), "etcd"), "--version")
	}
	run("git", "git", "--version")
	run("kollect", "git", "-C", root, "describe", "--always", "--dirty")
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, d := range bi.Deps {
			switch d.Path {
			case "github.com/nats-io/nats-server/v2", "github.com/go-git/go-git/v5", "k8s.io/client-go", "github.com/jackc/pgx/v5":
				v[d.Path] = d.Version
			}
		}
	}
	return v
}
