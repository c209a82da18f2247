package collector_test

import (
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/collector"
)

func TestStatusAndMetricsFollowCountsAndFailures(t *testing.T) {
	e := newEnv(t)
	namespace(t, "status", nil)
	p := profile("status", "tiers", deploymentGVK, attr("image", "$.spec.template.spec.containers[0].image"),
		attr("replicas", "$.spec.replicas"), v1alpha1.Attribute{Name: "tier", Path: "$.metadata.labels.tier", Type: v1alpha1.AttributeInt})
	p.Spec.Metrics = []v1alpha1.ProfileMetric{{Name: "deployment_replicas", Path: "replicas", Labels: []string{"image"}}}
	cfg := targetConfig(t, "status", "tiers", 1, p, in("status"))
	addr := freeAddr(t)
	e.start(func(c *collector.Config) { c.Metrics.BindAddress, c.Metrics.Secure = addr, false })
	e.put(cfg)
	a, b := deployment("status", "a", "x:1", 2, nil), deployment("status", "b", "x:1", 3, nil)
	bad := deployment("status", "bad", "y:1", 1, map[string]string{"tier": "web"})
	for _, d := range []*appsv1.Deployment{a, b, bad} {
		create(t, d)
	}
	tiered := func(d *appsv1.Deployment) busv1.Row {
		return row(t, cfg, d, map[string]any{"image": d.Spec.Template.Spec.Containers[0].Image,
			"replicas": float64(*d.Spec.Replicas), "tier": nil})
	}
	e.waitRows("an object whose required attribute fails has no row", tiered(a), tiered(b))
	e.waitReport(cfg, func(s busv1.TargetStatus) error {
		prefix := `status/bad: attribute "tier": `
		if s.CollectedCount != 2 || s.ExtractionFailures != 1 || !strings.HasPrefix(s.LastExtractionError, prefix) {
			return fmt.Errorf("got %d collected, %d failures, last error %q; want 2, 1, %q...",
				s.CollectedCount, s.ExtractionFailures, s.LastExtractionError, prefix)
		}
		return nil
	})
	scrape(t, addr, `kollect_profile_deployment_replicas{image="x:1",target="status/tiers"} 5`,
		`kollect_collector_informer_objects{gvk="apps/v1/Deployment"} 3`,
		`kollect_collector_extraction_failures_total{target="status/tiers"} `, `kollect_collector_leader 1`)

	update(t, bad, func() { delete(bad.Labels, "tier") })
	e.waitRows("a fixed object gets its row", tiered(a), tiered(b), tiered(bad))
	e.waitStatus(cfg, busv1.TargetStatus{CollectedCount: 3, MatchedNamespaces: []string{"status"}})
	scrape(t, addr, `kollect_profile_deployment_replicas{image="x:1",target="status/tiers"} 5`,
		`kollect_profile_deployment_replicas{image="y:1",target="status/tiers"} 1`)

	remove(t, a)
	e.waitStatus(cfg, busv1.TargetStatus{CollectedCount: 2, MatchedNamespaces: []string{"status"}})
	scrape(t, addr, `kollect_profile_deployment_replicas{image="x:1",target="status/tiers"} 3`)
	for _, path := range []string{"/healthz", "/readyz"} {
		if code, body := get(t, "http://"+addr+path); code != http.StatusOK {
			t.Errorf("GET %s = %d %q, want 200", path, code, body)
		}
	}
}

// scrape waits until /metrics has a line starting with each of want.
func scrape(t *testing.T, addr string, want ...string) {
	t.Helper()
	eventually(t, 30*time.Second, "metrics", func() error {
		code, body := get(t, "http://"+addr+"/metrics")
		if code != http.StatusOK {
			return fmt.Errorf("GET /metrics = %d", code)
		}
		for _, w := range want {
			found := false
			for line := range strings.Lines(body) {
				found = found || strings.HasPrefix(line, w)
			}
			if !found {
				return fmt.Errorf("no line starts with %q", w)
			}
		}
		return nil
	})
}

func get(t *testing.T, url string) (int, string) {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		return 0, err.Error()
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
