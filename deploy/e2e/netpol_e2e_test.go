//go:build e2ecluster

package e2e_test

import (
	"os/exec"
	"slices"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// networkPolicies checks the chart's NetworkPolicies, on by default: one per service, and
// each path they admit answers on the node. The node's bridge network does not enforce
// NetworkPolicies, so a denial cannot be shown here (the chart tests render them); what
// this shows is that the default install, with its policies, works over every path they
// are meant to admit.
func (s *scenario) networkPolicies(t *testing.T) {
	ctx := t.Context()
	nps, err := s.c.Client.NetworkingV1().NetworkPolicies(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, np := range nps.Items {
		got = append(got, np.Labels["app.kubernetes.io/component"])
	}
	slices.Sort(got)
	want := []string{"aggregator", "collector", "control", "database-exporter", "event-exporter", "nats", "query", "snapshot-exporter"}
	if !slices.Equal(got, want) {
		t.Fatalf("NetworkPolicies of components %v, want %v", got, want)
	}
	// The bus: every service is Ready, and the export step's rows went collector →
	// NATS → aggregator → NATS → database exporter.
	if err := workloadsReady(ctx, s.c.Client, ns); err != nil {
		t.Fatalf("the bus path: %v", err)
	}
	// The webhook: the API server calls it, and it denies a Target reaching a namespace the
	// requester may not list (a user granted edit in team-a only).
	run(t, s.c.Admin, s.kubectl, "create", "rolebinding", "e2e-editor", "--namespace", "team-a", "--clusterrole", "edit", "--user", "e2e-editor")
	bad := `{"apiVersion":"kollect.dev/v1alpha1","kind":"KollectTarget","metadata":{"name":"reach","namespace":"team-a"},` +
		`"spec":{"profileRef":{"name":"deployment-images"},"includedNamespaces":["kube-system"]}}`
	cmd := exec.CommandContext(ctx, s.kubectl, "--as", "e2e-editor", "create", "-f", "-")
	cmd.Env = append(cmd.Environ(), "KUBECONFIG="+s.c.Admin)
	cmd.Stdin = strings.NewReader(bad)
	out, err := cmd.CombinedOutput()
	if err == nil || !strings.Contains(string(out), "admission webhook") || !strings.Contains(string(out), "denied the request") {
		t.Fatalf("the webhook path: a Target for kube-system by a team-a editor gave %v:\n%s", err, out)
	}
	// The query API: the API server proxies to the query service.
	raw := run(t, s.c.Admin, s.kubectl, "get", "--raw", "/apis/query.kollect.dev/v1alpha1/namespaces/team-a/inventoryrevisions")
	if !strings.Contains(raw, `"items"`) {
		t.Fatalf("the query path: %.300s", raw)
	}
	// Metrics: every service answers a scrape with the metrics-reader token.
	for _, comp := range want {
		if comp == "nats" {
			continue // NATS's monitor port is scraped by no chart object
		}
		for _, p := range componentPods(t, s.c, comp) {
			if n := podMetric(t, s.c, p, "go_goroutines"); n <= 0 {
				t.Errorf("the metrics path: %s/%s answered %v goroutines", comp, p.Name, n)
			}
		}
	}
	t.Logf("%d NetworkPolicies; bus, webhook, query and metrics paths answered", len(nps.Items))
}
