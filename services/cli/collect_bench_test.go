package cli_test

import (
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// BenchmarkCollect10kDeployments runs the kollect binary against a real API
// server holding 10,000 Deployments in 20 namespaces and reports wall time
// and the process's peak RSS.
func BenchmarkCollect10kDeployments(b *testing.B) {
	const total, namespaces = 10000, 20
	k := testenv.StartKube(b)
	ctx := context.Background()
	kcfg := kubeconfig(b, k)
	for i := range namespaces {
		namespace(ctx, b, k.Client, fmt.Sprintf("load-%02d", i), map[string]string{"env": "prod"})
	}
	start := time.Now()
	var wg sync.WaitGroup
	sem := make(chan struct{}, 32)
	for i := range total {
		sem <- struct{}{}
		wg.Go(func() {
			defer func() { <-sem }()
			deployment(ctx, b, k.Client, fmt.Sprintf("load-%02d", i%namespaces), fmt.Sprintf("app-%05d", i),
				map[string]string{"owner": "team-load"}, "registry.example.com/app:1.0", "envoy:1.30")
		})
	}
	wg.Wait()
	b.Logf("created %d Deployments in %v", total, time.Since(start))
	bin := filepath.Join(b.TempDir(), "kollect")
	if out, err := exec.Command("go", "build", "-o", bin, "kollect.dev/kollect/services/cli/cmd").CombinedOutput(); err != nil {
		b.Fatalf("build kollect: %v\n%s", err, out)
	}
	// every namespace is labelled env=prod, so the Target selects all 10,000
	dir := writeConfig(b, map[string]string{"kollect.yaml": config})
	b.ResetTimer()
	for range b.N {
		cmd := exec.Command(bin, "collect", "--config", dir, "--kubeconfig", kcfg, "--output", b.TempDir())
		start := time.Now()
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("kollect collect: %v\n%s", err, out)
		}
		b.ReportMetric(time.Since(start).Seconds(), "wall-s/op")
		b.ReportMetric(float64(cmd.ProcessState.SysUsage().(*syscall.Rusage).Maxrss)/1024, "peak-RSS-MiB")
	}
}
