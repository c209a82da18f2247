package loadtest

import (
	"slices"
	"strings"

	"kollect.dev/kollect/deploy/demo"
)

// Phase is one phase's wall time, CPU, machine load and bus storage.
type Phase struct {
	Name    string  `json:"name"`
	Start   float64 `json:"start"` // seconds since the run started
	Seconds float64 `json:"seconds"`
	// KollectCPU is the CPU seconds of Kollect's own processes (the six
	// services); AllCPU adds the peers and the load-test process.
	KollectCPU float64 `json:"kollectCPUSeconds"`
	AllCPU     float64 `json:"allCPUSeconds"`
	// Unit is what the phase counts ("object", "change", "second") and
	// Units how many; KollectCPUPerUnitMs is KollectCPU per unit in ms.
	Unit                string  `json:"unit,omitempty"`
	Units               float64 `json:"units,omitempty"`
	KollectCPUPerUnitMs float64 `json:"kollectCPUPerUnitMs,omitempty"`
	// NetOfIdleMs is KollectCPUPerUnitMs less what the services burn doing
	// nothing for as long (the idle phase's rate × Seconds); nil without an
	// idle phase.
	NetOfIdleMs *float64 `json:"kollectCPUPerUnitNetOfIdleMs,omitempty"`
	// LoadStart and LoadEnd are the 1, 5 and 15-minute load averages at the
	// phase's start and end; LoadMax the highest 1-minute value sampled.
	LoadStart [3]float64 `json:"loadStart"`
	LoadEnd   [3]float64 `json:"loadEnd"`
	LoadMax   float64    `json:"loadMax"`
	// BusBytesPeak and BusBytesEnd are the bytes the bus stores (every
	// stream, bucket and object store), highest sampled and at the end.
	BusBytesPeak float64 `json:"busBytesPeak"`
	BusBytesEnd  float64 `json:"busBytesEnd"`
	// BusInBytes is what the services published to the bus in the phase
	// (the bytes every NATS node received on their client connections,
	// each counted once whatever the streams' replicas); -1 when unknown.
	BusInBytes float64 `json:"busInBytes"`
}

// isKollect says whether a sampled process is one of Kollect's services.
func isKollect(name string) bool {
	role, _, _ := strings.Cut(name, "-") // collector-1 is a collector
	return slices.Contains(demo.Services, role)
}

// phaseUnit is what a phase's Kollect CPU is divided by; "" for phases the
// services do not run in.
func (r *run) phaseUnit(name string, seconds float64) (string, float64) {
	switch name {
	case "initial sync":
		return "object", float64(r.c.Objects)
	case "idle":
		return "second", seconds
	case "changes":
		n := 0
		for _, c := range r.res.Changes {
			if c != nil && !c.Start.IsZero() {
				n++
			}
		}
		return "change", float64(n)
	case "deletes":
		return "object", float64(r.res.Delete.Count)
	}
	return "", 0
}

// phases folds the sampler's marks, the processes' CPU split and the load
// and bus series into one Phase per phase ("end", between the last phase
// and stopping, is left out). The sampler's lock is held.
func (r *run) phases(endAt float64, endLoad [3]float64) []Phase {
	marks := r.s.phases
	var out []Phase
	idleRate := -1.0 // Kollect CPU seconds per second idle
	for i, m := range marks {
		end, load := endAt, endLoad
		if i+1 < len(marks) {
			end, load = marks[i+1].At, marks[i+1].Load
		}
		if m.Name == "end" {
			continue
		}
		ph := Phase{Name: m.Name, Start: m.At, Seconds: end - m.At, LoadStart: m.Load, LoadEnd: load}
		for _, p := range r.res.Processes {
			ph.AllCPU += p.CPUByPhase[m.Name]
			if isKollect(p.Name) {
				ph.KollectCPU += p.CPUByPhase[m.Name]
			}
		}
		ph.LoadMax = max(m.Load[0], load[0])
		if v, ok := maxIn(r.s.load, m.At, end); ok {
			ph.LoadMax = max(ph.LoadMax, v)
		}
		ph.BusBytesPeak, _ = maxIn(r.s.busBytes[busTotal], m.At, end)
		ph.BusBytesEnd = lastIn(r.s.busBytes[busTotal], end)
		ph.BusInBytes = -1
		if i+1 < len(marks) && m.BusIn >= 0 && marks[i+1].BusIn >= 0 {
			ph.BusInBytes = marks[i+1].BusIn - m.BusIn
		}
		ph.Unit, ph.Units = r.phaseUnit(m.Name, ph.Seconds)
		if ph.Units > 0 {
			ph.KollectCPUPerUnitMs = 1000 * ph.KollectCPU / ph.Units
		}
		if m.Name == "idle" && ph.Seconds > 0 {
			idleRate = ph.KollectCPU / ph.Seconds
		}
		out = append(out, ph)
	}
	for i := range out {
		if ph := &out[i]; idleRate >= 0 && ph.Units > 0 && ph.Unit != "second" {
			net := 1000 * (ph.KollectCPU - idleRate*ph.Seconds) / ph.Units
			ph.NetOfIdleMs = &net
		}
	}
	return out
}

// phase returns the report of phase name; the zero Phase when the run has
// none.
func (res *Result) phase(name string) Phase {
	for _, p := range res.Phases {
		if p.Name == name {
			return p
		}
	}
	return Phase{}
}
