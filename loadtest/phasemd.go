package loadtest

import (
	"fmt"
	"strings"
)

// phasesMarkdown renders the per-phase table: wall time, CPU (Kollect's
// services and every sampled process), CPU per unit of work, machine load
// and bus storage.
func phasesMarkdown(b *strings.Builder, res *Result) {
	if len(res.Phases) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("## Phases")
	p("")
	p("Kollect CPU is the sum over its services' processes, every replica (utime+stime); *all* adds kube-apiserver, etcd, PostgreSQL, the NATS nodes and the load-test process (the Git server's HTTP handler, the pollers and, with `-source sim`, the simulated API server). Per unit: per object created or synced, per change made, per object deleted, per second idle. *Net of idle* subtracts what the services burn for as long doing nothing (the idle phase's rate). Load average is the machine's (1 min) at the phase's start → end, and the highest sampled during it; compare runs only at similar load. Bus: bytes stored over every stream, bucket and object store, highest sampled during the phase / at its end.")
	p("")
	p("| phase | wall s | Kollect CPU s | Kollect CPU per unit | net of idle | all CPU s | load start → end (max) | bus MB peak / end |")
	p("|---|---|---|---|---|---|---|---|")
	for _, ph := range res.Phases {
		per, net := "—", "—"
		if ph.Units > 0 {
			per = fmt.Sprintf("%.3f ms/%s (%.0f)", ph.KollectCPUPerUnitMs, ph.Unit, ph.Units)
		}
		if ph.NetOfIdleMs != nil {
			net = fmt.Sprintf("%.3f ms/%s", *ph.NetOfIdleMs, ph.Unit)
		}
		p("| %s | %.1f | %.2f | %s | %s | %.1f | %.2f → %.2f (%.2f) | %.1f / %.1f |", ph.Name, ph.Seconds, ph.KollectCPU, per, net,
			ph.AllCPU, ph.LoadStart[0], ph.LoadEnd[0], ph.LoadMax, ph.BusBytesPeak/1e6, ph.BusBytesEnd/1e6)
	}
	p("")
}

// busMarkdown renders each bus stream's storage after the initial sync, at
// its peak during the changes and at the end.
func busMarkdown(b *strings.Builder, res *Result) {
	if len(res.Bus) == 0 {
		return
	}
	p := func(format string, args ...any) { fmt.Fprintf(b, format+"\n", args...) }
	p("## Bus storage")
	p("")
	p("Bytes each JetStream stream stores (`KV_*` are buckets, `OBJ_*` object stores), sampled every second, in MB:")
	p("")
	p("| stream | after initial sync | peak during changes | end |")
	p("|---|---|---|---|")
	for _, s := range res.Bus {
		name := "`" + s.Name + "`"
		if s.Name == busTotal {
			name = "**total**"
		}
		p("| %s | %.2f | %.2f | %.2f |", name, s.AfterInitialSync/1e6, s.PeakInChanges/1e6, s.End/1e6)
	}
	p("")
}
