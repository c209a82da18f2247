package loadtest

import (
	"fmt"
	"sort"
	"strings"
)

// markdown renders the human report.
func markdown(res *Result, base string) string {
	var b strings.Builder
	p := func(format string, args ...any) { fmt.Fprintf(&b, format+"\n", args...) }
	s := res.Settings
	p("# Load test %s (%s mode), %s", res.Tier, res.Mode, res.Date)
	p("")
	p("%d objects (%d ConfigMaps, %d Deployments, mean %d bytes as JSON) in %d namespaces; %d inventory bound to a PostgreSQL and a Git perResource sink; %d workers at %.0f QPS; %.0f s idle; %d changes at %.0f/s; %d deletes.",
		s.Objects, s.ConfigMaps, s.Deployments, s.AvgBytes, s.Namespaces, s.Inventories, s.Workers, s.QPS, s.IdleSeconds, s.Changes, s.ChangeRate, s.Deletes)
	p("")
	p("Services' `--memory-limit` (Go soft limit 85%% of it): %s.", memoryLimits(s.MemoryLimits))
	p("")
	if s.NATSNodes > 0 {
		p("Bus: a JetStream cluster of %d nats-server processes on loopback, streams replicated %d times.", s.NATSNodes, busReplicas(s.NATSNodes))
		p("")
	}
	m := res.Machine
	p("Machine: %s, %d CPUs, %s memory, kernel %s, %s. **Load average** (1/5/15 min) at start %s, at end %s; %s.",
		m.CPUModel, m.CPUs, m.MemoryGiB, m.Kernel, m.GoVersion, m.LoadStart, m.LoadEnd, peakLoad(res.Phases, m.CPUs))
	p("")
	var vs []string
	for k, v := range res.Versions {
		vs = append(vs, fmt.Sprintf("%s %s", k, v))
	}
	sort.Strings(vs)
	p("Versions: %s.", strings.Join(vs, "; "))
	p("")
	if len(res.Targets) > 0 {
		p("## Targets (issue 17)")
		p("")
		p("| target | limit | reached | met |")
		p("|---|---|---|---|")
		for _, t := range res.Targets {
			met := "no"
			if t.Met {
				met = "yes"
			}
			p("| %s | ≤ %g %s | %.3g %s | %s |", t.Name, t.Target, t.Unit, t.Got, t.Unit, met)
		}
		p("")
	}
	p("## Results")
	p("")
	p("| measure | value |")
	p("|---|---|")
	p("| create %d objects | %.1f s (%.0f objects/s) |", s.Objects, res.CreateSeconds, float64(s.Objects)/max(res.CreateSeconds, 1e-9))
	if res.Mode == "system" {
		is := res.InitialSync
		p("| initial sync to PostgreSQL (services start → %d rows) | %.1f s |", is.Rows, is.PostgresSeconds)
		p("| initial sync to Git (services start → %d files) | %.1f s |", is.Files, is.GitSeconds)
		p("| %d changes made in | %.1f s |", s.Changes, res.ChangesSecs)
		p("| delete %d objects → rows gone / files gone | %.2f s / %.2f s |", res.Delete.Count, res.Delete.PostgresSeconds, res.Delete.GitSeconds)
		p("")
		p("Change-to-sink latency, from just before the API write to the poller seeing the new value (PostgreSQL polled every 50 ms by primary key, Git every 50 ms by reading the new commit's file), in seconds:")
		p("")
		p("| sink | count | missing | min | p50 | p95 | p99 | max | mean |")
		p("|---|---|---|---|---|---|---|---|---|")
		for _, l := range []struct {
			n string
			l Latency
		}{{"PostgreSQL", res.Postgres}, {"Git", res.Git}} {
			p("| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %.2f | %.2f |", l.n, l.l.Count, l.l.Missing, l.l.Min, l.l.P50, l.l.P95, l.l.P99, l.l.Max, l.l.Mean)
		}
	}
	p("")
	phasesMarkdown(&b, res)
	processes(&b, res)
	busMarkdown(&b, res)
	if len(res.Collect) > 0 {
		p("## Command-line collection on the same API server and objects")
		p("")
		p("`kollect collect` (selection and extraction, NDJSON to a discarded stdout) next to `kubectl get -o json` (the raw paginated list, no extraction) for the same label selector. Peak RSS is the child's VmHWM sampled every 5 ms; CPU from rusage.")
		p("")
		p("| tool | input | objects | wall s | CPU s | peak RSS MiB | output MB | error |")
		p("|---|---|---|---|---|---|---|---|")
		for _, c := range res.Collect {
			p("| %s | %s | %d | %.2f | %.2f | %.0f | %.1f | %s |", c.Tool, c.Input, c.Objects, c.WallSecs, c.CPUSecs, c.PeakRSSMiB, float64(c.OutBytes)/1e6, c.Error)
		}
		p("")
	}
	p("## Plot")
	p("")
	p("![latency and memory](%s.png)", base)
	p("")
	p("Top: cumulative distribution of change-to-sink latency per sink. Bottom: resident memory of each process over the run, with the phase starts marked. Each panel has its own legend.")
	for _, n := range res.Notes {
		p("")
		p("Note: %s", n)
	}
	return b.String()
}

func processes(b *strings.Builder, res *Result) {
	fmt.Fprintln(b, "## Processes")
	fmt.Fprintln(b)
	fmt.Fprintln(b, "Peak RSS is VmHWM (PostgreSQL: the largest sampled sum over the postmaster and its backends); CPU is utime+stime from /proc (PostgreSQL: plus its backends, live and exited). Each NATS node (`nats-0`…) is its own process; the Git server's HTTP handler is embedded in the load-test process (`loadtest`); `git-server children` is the CPU of the processes git http-backend spawns (receive-pack, index-pack), read as the load-test process's waited-for children (in the create phase it also holds initdb).")
	fmt.Fprintln(b)
	phases := []string{"create", "initial sync", "idle", "changes", "deletes", "collect"}
	fmt.Fprintf(b, "| process | peak RSS MiB | CPU s total | %s |\n|---|---|---|%s\n", strings.Join(phases, " | "), strings.Repeat("---|", len(phases)))
	for _, pr := range res.Processes {
		var cells []string
		for _, ph := range phases {
			cells = append(cells, fmt.Sprintf("%.1f", pr.CPUByPhase[ph]))
		}
		fmt.Fprintf(b, "| %s | %.0f | %.1f | %s |\n", pr.Name, pr.PeakRSSMiB, pr.CPUSeconds, strings.Join(cells, " | "))
	}
	fmt.Fprintln(b)
	if len(res.Backlog) > 0 {
		fmt.Fprintln(b, "Bus backlog (pending + unacknowledged messages per consumer), maximum over the run:")
		fmt.Fprintln(b)
		for _, k := range sortedKeys(res.BacklogSeries) {
			fmt.Fprintf(b, "- `%s`: %.0f\n", k, res.Backlog[k])
		}
		fmt.Fprintln(b)
	}
}

// memoryLimits lists the services' memory limits, "none" when there are none.
func memoryLimits(m map[string]string) string {
	var out []string
	for _, k := range sortedKeys(m) {
		out = append(out, k+" "+m[k])
	}
	if len(out) == 0 {
		return "none"
	}
	return strings.Join(out, ", ")
}

func sortedKeys[V any](m map[string]V) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// peakLoad states the highest 1-minute load average sampled during the
// phases against the CPU count: what else ran shows in the numbers.
func peakLoad(phases []Phase, cpus int) string {
	peak, at := 0.0, ""
	for _, ph := range phases {
		if ph.LoadMax > peak {
			peak, at = ph.LoadMax, ph.Name
		}
	}
	if at == "" {
		return "no load sampled during the phases"
	}
	return fmt.Sprintf("the highest 1-minute load average sampled was %.2f on %d CPUs, in the %s phase (per phase below)", peak, cpus, at)
}
