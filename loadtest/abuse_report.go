package loadtest

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// AbuseP99Goal is the second tenant's change latency p99 the abuse phase of
// `make loadtest` holds to (issue #33).
const AbuseP99Goal = time.Second

// AbusePhase runs the abuse suite as a phase of `make loadtest -mode
// abuse`: it writes loadtest/results/abuse-<date>.md and .json and fails
// when a check failed or the second tenant's p99 is above AbuseP99Goal.
func AbusePhase(ctx context.Context, c AbuseConfig, outDir string, out io.Writer) error {
	rep, err := RunAbuse(ctx, c)
	if err != nil {
		return err
	}
	secs := make([]float64, len(rep.Latencies))
	for i, d := range rep.Latencies {
		secs[i] = d.Seconds()
	}
	sum := summarize(secs)
	sec := func(x float64) time.Duration { return time.Duration(x * float64(time.Second)).Round(time.Millisecond) }
	p50, p99, worst := sec(sum.P50), sec(sum.P99), sec(sum.Max)
	var md strings.Builder
	fmt.Fprintf(&md, "# Abuse phase %s\n\n", time.Now().UTC().Format("2006-01-02 15:04"))
	fmt.Fprintf(&md, "Load average before %s, after %s; %.0f s in all.\n\n", rep.LoadBefore, rep.LoadAfter, rep.Seconds)
	fmt.Fprintf(&md, "| measure | value | goal |\n|---|---|---|\n")
	fmt.Fprintf(&md, "| bus growth over the %v flood | %.1f MiB | ≤ %d MiB |\n", c.Flood, float64(rep.Growth)/(1<<20), c.MaxGrowth>>20)
	fmt.Fprintf(&md, "| second tenant's changes | %d | |\n", sum.Count)
	fmt.Fprintf(&md, "| their latency p50 / p99 / max | %v / %v / %v | p99 ≤ %v, each ≤ %v |\n",
		p50, p99, worst, AbuseP99Goal, c.MaxLatency)
	for name, mib := range rep.PeakRSS {
		fmt.Fprintf(&md, "| %s peak RSS | %.0f MiB | ≤ %.0f MiB |\n", name, mib, c.MaxRSS)
	}
	if p99 > AbuseP99Goal {
		rep.fail("the second tenant's change latency p99 is %v, above %v", p99, AbuseP99Goal)
	}
	fmt.Fprintf(&md, "\nFailed checks: %d\n", len(rep.Failures))
	for _, f := range rep.Failures {
		fmt.Fprintf(&md, "- %s\n", f)
	}
	base := filepath.Join(outDir, "abuse-"+time.Now().UTC().Format("2006-01-02"))
	js, err := json.MarshalIndent(rep, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(outDir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(base+".json", js, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(base+".md", []byte(md.String()), 0o644); err != nil {
		return err
	}
	fmt.Fprint(out, md.String())
	if len(rep.Failures) > 0 {
		return fmt.Errorf("%d abuse checks failed (%s.md)", len(rep.Failures), base)
	}
	return nil
}
