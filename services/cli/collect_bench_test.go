package cli_test

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// benchConfig is the 4-attribute image profile the numbers are for.
const benchConfig = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: images, namespace: team-a}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: images, path: "cel:object.spec.template.spec.containers.map(c, c.image)"}
  - {name: containers, path: "cel:size(object.spec.template.spec.containers)", type: int}
  - {name: replicas, path: "$.spec.replicas", type: int, optional: true}
  - {name: owner, path: "{.metadata.labels.owner}", optional: true}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: prod-deploys, namespace: team-a}
spec:
  profileRef: {name: images}
  namespaceSelector: {matchLabels: {env: prod}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: workloads, namespace: team-a}
spec: {}
`

// BenchmarkCollect10kDeployments runs the kollect binary against a real API
// server holding 10,000 Deployments (2 containers each) in 20 namespaces,
// with the 4-attribute image profile, and reports wall time and the
// process's peak RSS.
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
	if out, err := exec.Command("go", "build", "-o", bin, "kollect.dev/kollect/cmd/kollect").CombinedOutput(); err != nil {
		b.Fatalf("build kollect: %v\n%s", err, out)
	}
	// every namespace is labelled env=prod, so the Target selects all 10,000
	dir := writeConfig(b, map[string]string{"kollect.yaml": benchConfig})
	bins := map[string]string{"worktree": bin}
	// KOLLECT_BENCH_BINARIES=name=path,... adds binaries (another commit's build) measured
	// against the same API server in the same run.
	for _, kv := range strings.Split(os.Getenv("KOLLECT_BENCH_BINARIES"), ",") {
		if name, path, ok := strings.Cut(kv, "="); ok {
			bins[name] = path
		}
	}
	// The peak RSS comes from /usr/bin/time, not from this process's wait4: Go starts children
	// with vfork, and Linux carries the parent's RSS high-water mark across exec into the
	// child's ru_maxrss, so a child never looked smaller than this test binary.
	if _, err := os.Stat("/usr/bin/time"); err != nil {
		b.Fatalf("the benchmark measures with /usr/bin/time (Debian's time package): %v", err)
	}
	for name, bin := range bins {
		b.Run(name, func(b *testing.B) {
			for range b.N {
				var stderr bytes.Buffer
				cmd := exec.Command("/usr/bin/time", "-f", "kollect-bench %M %U %S", bin, "collect", "--config", dir, "--kubeconfig", kcfg, "--output-dir", b.TempDir())
				cmd.Stderr = &stderr
				start := time.Now()
				if err := cmd.Run(); err != nil {
					b.Fatalf("kollect collect: %v\n%s", err, stderr.String())
				}
				wall := time.Since(start)
				var rssKiB int64
				var user, sys float64
				line := stderr.String()[strings.LastIndex(stderr.String(), "kollect-bench "):]
				if _, err := fmt.Sscanf(line, "kollect-bench %d %f %f", &rssKiB, &user, &sys); err != nil {
					b.Fatalf("read /usr/bin/time's line %q: %v", line, err)
				}
				b.ReportMetric(wall.Seconds(), "wall-s/op")
				b.ReportMetric(float64(rssKiB)/1024, "peak-RSS-MiB")
				b.ReportMetric(user+sys, "cpu-s/op")
			}
		})
	}
}
