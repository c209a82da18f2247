package loadtest

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"sort"
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
	r.res.Targets = r.targets()
}

// targets compares the run with the targets that apply to its tier.
func (r *run) targets() []TargetCheck {
	var out []TargetCheck
	add := func(name string, target, got float64, unit string) {
		out = append(out, TargetCheck{Name: name, Target: target, Got: got, Unit: unit, Met: got <= target && got > 0})
	}
	if !r.c.CollectOnly {
		if r.c.Objects >= 100000 {
			add("initial sync to PostgreSQL (100k)", 120, r.res.InitialSync.PostgresSeconds, "s")
		}
		for _, p := range r.res.Processes {
			if p.Name == "collector" || p.Name == "aggregator" {
				add(p.Name+" peak RSS", 400, p.PeakRSSMiB, "MiB")
			}
		}
		limit := 2.0
		if r.c.Objects >= 100000 {
			limit = 3
		}
		add("change-to-PostgreSQL p99", limit, r.res.Postgres.P99, "s")
		add("change-to-Git p99", limit, r.res.Git.P99, "s")
	}
	for _, c := range r.res.Collect {
		if c.Tool == "kollect collect" && c.Input == "deployments" && c.Objects >= 5000 {
			add(fmt.Sprintf("kollect collect of %d Deployments (target is for 10k)", c.Objects), 5, c.WallSecs, "s")
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
