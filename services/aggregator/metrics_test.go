package aggregator_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/aggregator"
)

// Run serves the engine's metrics on /metrics: the leader gauge while it
// holds the lease, and the inventory's last snapshot.
func TestRunServesTheAggregatorMetrics(t *testing.T) {
	n := startBusWithInventory(t)
	putRow(t, n, "u1", 1)
	putRow(t, n, "u2", 1)

	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	c := aggregator.DefaultConfig()
	c.Bus.URL, c.Metrics.BindAddress, c.Metrics.Secure = n.URL, fmt.Sprintf("127.0.0.1:%d", port), false
	c.Leader.Identity, c.Settle = "scraped", 5*time.Millisecond
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- aggregator.Run(ctx, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("run: %v", err)
		}
	})

	url := "http://" + c.Metrics.BindAddress + "/metrics"
	want := []string{
		"kollect_aggregator_leader 1",
		`kollect_aggregator_publishes_total{reason="change"} 1`,
		`kollect_aggregator_snapshot_rows{inventory="team-a/inv"} 2`,
		"kollect_aggregator_row_updates_total 2",
		"kollect_aggregator_snapshot_duration_seconds_count 1",
	}
	testenv.Eventually(t, 20*time.Second, "the metrics", func() error {
		if missing := missingLines(scrape(t, url), want); len(missing) > 0 {
			return fmt.Errorf("GET /metrics lacks %q", missing)
		}
		return nil
	})
}

// scrape returns the body of GET url, or "" while the server is not up.
func scrape(t *testing.T, url string) string {
	t.Helper()
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return ""
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil || resp.StatusCode != http.StatusOK {
		return ""
	}
	return string(b)
}

// missingLines returns the wanted lines that body lacks.
func missingLines(body string, want []string) []string {
	var missing []string
	for _, w := range want {
		found := false
		for line := range strings.Lines(body) {
			found = found || strings.TrimSuffix(line, "\n") == w
		}
		if !found {
			missing = append(missing, w)
		}
	}
	return missing
}
