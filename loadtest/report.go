package loadtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"time"
)

// base is the report files' name without extension.
func (r *run) base() string {
	d, _ := time.Parse(time.RFC3339, r.res.Date)
	b := d.Format("2006-01-02") + "-" + r.c.Tier
	if r.c.CollectOnly {
		b += "-collect"
	}
	return b
}

// finish folds the samples into the result and checks the issue targets.
func (r *run) finish() {
	r.res.Machine.LoadEnd = loadavg()
	s := r.s
	s.mu.Lock()
	defer s.mu.Unlock()
	r.res.RSS, r.res.BacklogSeries, r.res.Backlog = s.rss, s.backlog, map[string]float64{}
	r.res.PhaseStarts = map[string]float64{}
	for _, ph := range s.phases {
		r.res.PhaseStarts[ph.Name] = ph.At
	}
	for k, pts := range s.backlog {
		for _, p := range pts {
			r.res.Backlog[k] = max(r.res.Backlog[k], p.V)
		}
	}
	for name := range s.cpu {
		p := Process{Name: name, PeakRSSMiB: s.hwm[name], CPUSeconds: s.cpu[name], CPUByPhase: map[string]float64{}}
		for i, ph := range s.phases {
			end := s.cpu[name]
			if i+1 < len(s.phases) {
				end = s.phases[i+1].CPU[name]
			}
			if ph.Name != "end" {
				p.CPUByPhase[ph.Name] = end - ph.CPU[name]
			}
		}
		r.res.Processes = append(r.res.Processes, p)
	}
	sort.Slice(r.res.Processes, func(i, j int) bool { return r.res.Processes[i].Name < r.res.Processes[j].Name })
	endLoad, _ := loadavg3()
	r.res.Phases = r.phases(time.Since(s.start).Seconds(), endLoad)
	r.res.BusSeries, r.res.Bus = s.busBytes, r.busStreams()
	withProcessStats(r.res.Replicas, r.res.Processes)
	r.res.Settings.StreamReplicas = s.streamReplicas
	if ch := r.res.phase("changes"); ch.Units > 0 && ch.BusInBytes >= 0 {
		r.res.BusWrites.PerChangeBytes = ch.BusInBytes / ch.Units
	}
	if sync := r.res.phase("initial sync"); sync.BusInBytes >= 0 {
		r.res.BusWrites.InitialSyncBytes = sync.BusInBytes
		if r.res.BusWrites.SnapshotBytes > 0 {
			r.res.BusWrites.InitialSyncRatio = sync.BusInBytes / r.res.BusWrites.SnapshotBytes
		}
	}
	r.res.Targets = append(r.targets(), replicaChecks(r.res.Replicas)...)
}

// busStreams summarises each stream's stored bytes at the end of the
// initial sync, at its peak during the changes and at the end. The
// sampler's lock is held.
func (r *run) busStreams() []BusStream {
	var synced, chFrom, chTo float64 = -1, -1, -1
	for i, m := range r.s.phases {
		next := -1.0
		if i+1 < len(r.s.phases) {
			next = r.s.phases[i+1].At
		}
		switch m.Name {
		case "initial sync":
			synced = next
		case "changes":
			chFrom, chTo = m.At, next
		}
	}
	var out []BusStream
	for _, name := range sortedKeys(r.s.busBytes) {
		pts := r.s.busBytes[name]
		b := BusStream{Name: name}
		if len(pts) > 0 {
			b.End = pts[len(pts)-1].V
		}
		if synced >= 0 {
			b.AfterInitialSync = lastIn(pts, synced)
		}
		if chFrom >= 0 && chTo >= 0 {
			b.PeakInChanges, _ = maxIn(pts, chFrom, chTo)
		}
		out = append(out, b)
	}
	return out
}

// targets compares the run with the targets of issue 17 (incremental
// pipeline) that apply to its tier, and issue 10's for `kollect collect`.
func (r *run) targets() []TargetCheck {
	var out []TargetCheck
	add := func(name string, target, got float64, unit string) {
		out = append(out, TargetCheck{Name: name, Target: target, Got: got, Unit: unit, Met: got <= target && got > 0})
	}
	if !r.c.CollectOnly && r.c.Objects >= 100000 {
		out = scaleTargets(r.c.Objects, r.res)
	} else if !r.c.CollectOnly {
		if r.c.Objects >= 100000 {
			add("initial sync to PostgreSQL (100k)", 60, r.res.InitialSync.PostgresSeconds, "s")
		}
		// Every replica counts: the highest peak of a role's replicas.
		peak := map[string]float64{}
		for _, p := range r.res.Processes {
			if role, _, _ := strings.Cut(p.Name, "-"); role == "collector" || role == "aggregator" {
				peak[role] = max(peak[role], p.PeakRSSMiB)
			}
		}
		for _, role := range []string{"aggregator", "collector"} {
			if v, ok := peak[role]; ok {
				add(role+" peak RSS (highest replica)", 250, v, "MiB")
			}
		}
		add("change-to-PostgreSQL p99", 1, r.res.Postgres.P99, "s")
		if sync := r.res.phase("initial sync"); sync.Units > 0 {
			add("Kollect CPU per object, initial sync", 0.5, sync.KollectCPUPerUnitMs, "ms")
		}
		if ch := r.res.phase("changes"); ch.Units > 0 {
			got, name := ch.KollectCPUPerUnitMs, "Kollect CPU per one-object change"
			if ch.NetOfIdleMs != nil {
				got, name = *ch.NetOfIdleMs, name+" (net of idle)"
			}
			add(name, 2, got, "ms")
		}
	}
	for _, c := range r.res.Collect {
		if c.Tool == "kollect collect" && c.Input == "deployments" && c.Objects >= 5000 {
			add(fmt.Sprintf("kollect collect of %d Deployments (issue 10; target is for 10k)", c.Objects), 5, c.WallSecs, "s")
			break
		}
	}
	return out
}

// write writes the JSON and Markdown reports and the PNG plot.
func (r *run) write() error {
	if err := os.MkdirAll(r.c.OutDir, 0o755); err != nil {
		return err
	}
	base := filepath.Join(r.c.OutDir, r.base())
	b, err := json.MarshalIndent(r.res, "", "  ")
	if err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", b, 0o644); err != nil {
		return err
	}
	if err := writePlot(base+".png", r.res); err != nil {
		return fmt.Errorf("write plot: %w", err)
	}
	if err := os.WriteFile(base+".md", []byte(markdown(r.res, r.base())), 0o644); err != nil {
		return err
	}
	r.step("report: %s.{md,json,png}", base)
	return nil
}
