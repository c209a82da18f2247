package loadtest

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// CollectRun is one timed run of a command-line collection.
type CollectRun struct {
	Tool       string  `json:"tool"`
	Input      string  `json:"input"`
	Objects    int     `json:"objects"`
	WallSecs   float64 `json:"wallSeconds"`
	CPUSecs    float64 `json:"cpuSeconds"`
	PeakRSSMiB float64 `json:"peakRSSMiB"`
	OutBytes   int64   `json:"outputBytes"`
	Error      string  `json:"error,omitempty"`
}

// countWriter counts and discards.
type countWriter struct{ n int64 }

func (w *countWriter) Write(p []byte) (int, error) { w.n += int64(len(p)); return len(p), nil }

// timeCommand runs cmd to completion, its output counted and dropped, and
// returns wall time, CPU and peak RSS from the kernel's rusage.
func timeCommand(ctx context.Context, name string, args ...string) CollectRun {
	var out countWriter
	var stderr strings.Builder
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Stdout, cmd.Stderr = &out, &stderr
	start := time.Now()
	var hwm float64
	err := cmd.Start()
	if err == nil {
		// rusage's maxrss counts the forked copy of this process before
		// exec: sample the child's own VmHWM instead.
		done := make(chan struct{})
		go func() {
			defer close(done)
			for {
				st, err := readProc(cmd.Process.Pid)
				if err != nil || st.Comm == "" {
					return
				}
				hwm = max(hwm, st.HWM)
				time.Sleep(5 * time.Millisecond)
			}
		}()
		err = cmd.Wait()
		<-done
	}
	r := CollectRun{WallSecs: time.Since(start).Seconds(), OutBytes: out.n, PeakRSSMiB: hwm}
	if cmd.ProcessState != nil {
		if ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage); ok {
			r.CPUSecs = float64(ru.Utime.Nano()+ru.Stime.Nano()) / 1e9
		}
	}
	if err != nil {
		msg := strings.TrimSpace(stderr.String())
		r.Error = fmt.Sprintf("%v: %s", err, msg[max(0, len(msg)-300):])
	}
	return r
}

// collectInputs writes the CR folders `kollect collect` reads: both kinds,
// and Deployments alone. Folders hold Profiles and Targets only (no
// inventory: one record per Target).
func collectInputs(dir, tier string) (map[string]string, error) {
	docs := strings.Split(collectResources(tier), "\n---\n")
	// docs: Profile cm, Profile deploy, Target cm, Target deploy, Inventory.
	inputs := map[string]string{
		"configmaps+deployments": strings.Join(docs[:4], "\n---\n"),
		"deployments":            docs[1] + "\n---\n" + docs[3],
	}
	out := map[string]string{}
	for name, body := range inputs {
		d := filepath.Join(dir, "collect-"+strings.ReplaceAll(name, "+", "-"))
		if err := os.MkdirAll(d, 0o755); err != nil {
			return nil, err
		}
		if err := os.WriteFile(filepath.Join(d, "resources.yaml"), []byte(body), 0o644); err != nil {
			return nil, err
		}
		out[name] = d
	}
	return out, nil
}

// compareCollect times `kollect collect` on both inputs and, for the same
// objects, `kubectl get -o json` (the raw list without extraction) runs
// times each.
func compareCollect(ctx context.Context, kollect, kubeconfig, dir string, c Config) ([]CollectRun, error) {
	inputs, err := collectInputs(dir, c.Tier)
	if err != nil {
		return nil, err
	}
	kubectl, err := testenv.Tool("envtest/kubectl")
	if err != nil {
		return nil, err
	}
	sel := TierLabel + "=" + c.Tier
	deploys := c.Objects / 2
	var runs []CollectRun
	for range c.CollectRuns {
		for _, in := range []struct {
			tool, input string
			n           int
			bin         string
			args        []string
		}{
			{"kollect collect", "configmaps+deployments", c.Objects, kollect, []string{"collect", "--config", inputs["configmaps+deployments"], "--kubeconfig", kubeconfig}},
			{"kollect collect", "deployments", deploys, kollect, []string{"collect", "--config", inputs["deployments"], "--kubeconfig", kubeconfig}},
			{"kubectl get -o json", "configmaps+deployments", c.Objects, kubectl, []string{"--kubeconfig", kubeconfig, "get", "configmaps,deployments", "-A", "-l", sel, "-o", "json", "--chunk-size=500"}},
			{"kubectl get -o json", "deployments", deploys, kubectl, []string{"--kubeconfig", kubeconfig, "get", "deployments", "-A", "-l", sel, "-o", "json", "--chunk-size=500"}},
		} {
			r := timeCommand(ctx, in.bin, in.args...)
			r.Tool, r.Input, r.Objects = in.tool, in.input, in.n
			runs = append(runs, r)
		}
	}
	return runs, nil
}
