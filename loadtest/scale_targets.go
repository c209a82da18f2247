package loadtest

import (
	"strings"
)

// scaleTargets are issue 34's targets of the 100k (real API server) and 1M
// (simulated source) tiers: sync time, change latency, every Kollect
// process's peak RSS (exporters apart at 1M), CPU per object and per
// change with idle not subtracted, and the bus bytes written.
func scaleTargets(objects int, res *Result) []TargetCheck {
	million := objects >= 1000000
	limit := func(at1m, at100k float64) float64 {
		if million {
			return at1m
		}
		return at100k
	}
	var out []TargetCheck
	add := func(name string, target, got float64, unit string) {
		out = append(out, TargetCheck{Name: name, Target: target, Got: got, Unit: unit, Met: got <= target && got > 0})
	}
	add("initial sync to PostgreSQL", limit(300, 20), res.InitialSync.PostgresSeconds, "s")
	add("change-to-PostgreSQL p99", limit(1, 0.5), res.Postgres.P99, "s")
	add("change-to-Git p99", limit(2, 1), res.Git.P99, "s")
	kollect, exporters := 0.0, 0.0
	for _, p := range res.Processes {
		if !isKollect(p.Name) {
			continue
		}
		kollect = max(kollect, p.PeakRSSMiB)
		if strings.HasSuffix(roleOf(p.Name), "exporter") {
			exporters = max(exporters, p.PeakRSSMiB)
		}
	}
	add("peak RSS of every Kollect process (highest)", limit(1024, 200), kollect, "MiB")
	if million {
		add("peak RSS of every exporter (highest)", 300, exporters, "MiB")
	}
	if sync := res.phase("initial sync"); sync.Units > 0 {
		add("Kollect CPU per object synced", 0.2, sync.KollectCPUPerUnitMs, "ms")
	}
	if ch := res.phase("changes"); ch.Units > 0 {
		add("Kollect CPU per change (idle not subtracted)", 2, ch.KollectCPUPerUnitMs, "ms")
	}
	add("bus bytes written per one-object change", 16000, res.BusWrites.PerChangeBytes, "B")
	add("bus bytes in the initial sync ÷ snapshot bytes", 2, res.BusWrites.InitialSyncRatio, "×")
	return out
}

// roleOf is a replica's role: "collector-1" → "collector".
func roleOf(process string) string {
	role, _, _ := strings.Cut(process, "-")
	return role
}
