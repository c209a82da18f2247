//go:build e2ecluster

package e2e_test

import (
	"fmt"
	"io"
	"os"
	"strconv"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/deploy/e2e"
	"kollect.dev/kollect/pkg/testenv/e2efixture"
)

// resources are the tenant's objects, shared with charts/kollect's
// process-level end-to-end test (e2efixture), with the ServiceAccount.
func resources(n int) string { return e2efixture.Tenant(n, true) }

// inventory is team-a's inventory-<i>.
func inventory(i int) string { return e2efixture.Inventory(i) }

// workload is a Deployment with no replicas: an object to inventory that runs nothing.
func workload(name string) string {
	return fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata: {name: %[1]s, namespace: team-a}
spec:
  replicas: 0
  selector: {matchLabels: {app: %[1]s}}
  template:
    metadata: {labels: {app: %[1]s}}
    spec:
      containers: [{name: app, image: "nginx:1.27"}]
`, name)
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
}

func mustQuantity(s string) resource.Quantity { return resource.MustParse(s) }

// componentDeployment is the name of the chart's Deployment of component.
func componentDeployment(t *testing.T, c *e2e.Cluster, component string) string {
	t.Helper()
	ds, err := c.Client.AppsV1().Deployments(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=" + component})
	if err != nil {
		t.Fatal(err)
	}
	if len(ds.Items) != 1 {
		t.Fatalf("%d Deployments of %s, want 1", len(ds.Items), component)
	}
	return ds.Items[0].Name
}

// componentPods are the running pods of component.
func componentPods(t *testing.T, c *e2e.Cluster, component string) []corev1.Pod {
	t.Helper()
	ps, err := c.Client.CoreV1().Pods(ns).List(t.Context(), metav1.ListOptions{LabelSelector: "app.kubernetes.io/component=" + component,
		FieldSelector: "status.phase=Running"})
	if err != nil {
		t.Fatal(err)
	}
	return ps.Items
}

// podMetric adds up the samples of metric scraped from the pod's metrics port over the pod
// network (the host routes to the bridge), with a token bound to the chart's metrics-reader
// ClusterRole; -1 when unreachable or refused.
func podMetric(t *testing.T, c *e2e.Cluster, p corev1.Pod, metric string) float64 {
	t.Helper()
	port := int32(0)
	for _, ct := range p.Spec.Containers {
		for _, cp := range ct.Ports {
			if cp.Name == "metrics" {
				port = cp.ContainerPort
			}
		}
	}
	if port == 0 {
		t.Fatalf("pod %s has no metrics port", p.Name)
	}
	// The chart serves metrics over HTTPS to a token allowed to read them (metrics.secure).
	resp, err := scrapeGet(t, c, fmt.Sprintf("https://%s:%d/metrics", p.Status.PodIP, port))
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var sum float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, metric+"{") || strings.HasPrefix(line, metric+" ") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
}
