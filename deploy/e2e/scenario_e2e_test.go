//go:build e2ecluster

package e2e_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/deploy/e2e"
	"kollect.dev/kollect/pkg/testenv"
)

// scenario is issue 21's run on the cluster: install, export, scale, upgrade, uninstall.
type scenario struct {
	t                   *testing.T
	c                   *e2e.Cluster
	repo, helm, kubectl string
	rep                 *report
	dsn, podDSN         string
	workloads           int
	// dir is the cluster's work folder; tag the image.tag of the imported build.
	dir, tag string
	// crds says the kollect-crds release is installed (by the README's route); notes is
	// what its helm install printed.
	crds  bool
	notes string
}

func (s *scenario) helmArgs(verb string, extra ...string) []string {
	args := []string{verb, "kollect", filepath.Join(s.repo, "charts/kollect"), "--namespace", ns,
		"--set", "image.registry=" + buildRegistry, "--set", "image.tag=" + s.tag,
		// The PostgreSQL sink is forwarded on the node's address, a private one (10.123.0.1).
		"--set", "allowInClusterSinks=true",
		"--set", "nats.image.repository=" + natsRepo, "--set", "nats.image.tag=" + natsTag}
	return append(args, extra...)
}

func (s *scenario) run() {
	t, rep := s.t, s.rep
	ok := rep.step(t, "helm install kollect (defaults + image.registry/tag and the NATS image); every Deployment and the NATS StatefulSet Ready", func(t *testing.T) {
		if !s.crds {
			run(t, s.c.Admin, s.helm, "install", "kollect-crds", filepath.Join(s.repo, "charts/kollect-crds"), "--namespace", ns, "--create-namespace")
		}
		run(t, s.c.Admin, s.helm, s.helmArgs("install", "--create-namespace")...)
		d := waitFor(t, 8*time.Minute, "every workload Ready", func() error { return workloadsReady(t.Context(), s.c.Client, ns) })
		t.Logf("workloads Ready %v after helm install", d.Round(time.Second))
		rep.sample(t, s.c)
	})
	if ok {
		s.startPostgres(t)
	}
	ok = ok && rep.step(t, "a Profile, Target, PostgreSQL sink and inventories export every workload's row", s.export)
	ok = ok && rep.step(t, "NetworkPolicies on (the default), one per service; the paths they admit answer: bus, webhook, query API, metrics", s.networkPolicies)
	ok = ok && rep.step(t, "kubectl scale the database exporter to 3: all three export a share", s.scale)
	ok = ok && rep.step(t, "helm upgrade with a changed value rolls every Deployment; a change made meanwhile is not lost", s.upgrade)
	if ok {
		rep.sample(t, s.c)
	}
	_ = ok && rep.step(t, "helm uninstall: no pods left, the CRDs kept", s.uninstall)
}

// startPostgres starts PostgreSQL on the host and a forward to it on the node's address for
// the whole test (t is the top-level test: every later step uses the database).
func (s *scenario) startPostgres(t *testing.T) {
	pg := testenv.StartPostgres(t)
	addr := forward(t, s.c.NodeIP()+":0", fmt.Sprintf("127.0.0.1:%d", pg.Port))
	s.dsn = pg.CreateDatabase(t, "inventory")
	s.podDSN = strings.Replace(s.dsn, fmt.Sprintf("127.0.0.1:%d", pg.Port), addr, 1)
	if s.podDSN == s.dsn {
		t.Fatalf("cannot point %q at %s", s.dsn, addr)
	}
}

func (s *scenario) export(t *testing.T) {
	ctx := t.Context()
	if _, err := s.c.Client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	sec := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "postgres-credentials"}, StringData: map[string]string{"dsn": s.podDSN}}
	if _, err := s.c.Client.CoreV1().Secrets("team-a").Create(ctx, sec, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for s.workloads < 3 {
		s.addWorkload(t)
	}
	s.apply(t, resources(inventories))
	d := waitFor(t, 5*time.Minute, "rows in PostgreSQL", func() error { return allRows(ctx, s.dsn, inventories, s.workloads) })
	t.Logf("%d inventories × %d rows in PostgreSQL %v after the resources were applied", inventories, s.workloads, d.Round(time.Second))
}

// addWorkload creates one more Deployment in team-a (never scheduled: its image is absent
// and its replicas 0), which every inventory must export.
func (s *scenario) addWorkload(t *testing.T) {
	t.Helper()
	s.apply(t, workload(fmt.Sprintf("web-%d", s.workloads)))
	s.workloads++
}

func (s *scenario) apply(t *testing.T, manifest string) {
	t.Helper()
	// Not t.TempDir(): it holds the subtest's name, whose commas kubectl -f splits on.
	dir, err := os.MkdirTemp("", "kollect-e2e-manifest-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(dir) })
	path := filepath.Join(dir, "manifest.yaml")
	writeFile(t, path, manifest)
	run(t, s.c.Admin, s.kubectl, "apply", "-f", path)
}

func (s *scenario) scale(t *testing.T) {
	ctx := t.Context()
	dep := componentDeployment(t, s.c, "database-exporter")
	run(t, s.c.Admin, s.kubectl, "--namespace", ns, "scale", "deployment/"+dep, "--replicas=3")
	waitFor(t, 4*time.Minute, "3 database exporters Ready", func() error { return workloadsReady(ctx, s.c.Client, ns) })
	pods := componentPods(t, s.c, "database-exporter")
	if len(pods) != 3 {
		t.Fatalf("%d database exporter pods, want 3", len(pods))
	}
	// Each new inventory is one unit of work: enough of them that each exporter gets some.
	for i := inventories; i < inventories+12; i++ {
		s.apply(t, inventory(i))
	}
	waitFor(t, 4*time.Minute, "the new inventories in PostgreSQL", func() error { return allRows(ctx, s.dsn, inventories+12, s.workloads) })
	waitFor(t, time.Minute, "an export on every database exporter", func() error {
		var idle []string
		for _, p := range pods {
			if n := podMetric(t, s.c, p, "kollect_exporter_export_bytes_total"); n <= 0 {
				idle = append(idle, fmt.Sprintf("%s exported %v bytes", p.Name, n))
			}
		}
		if len(idle) > 0 {
			return fmt.Errorf("%s", strings.Join(idle, "; "))
		}
		return nil
	})
	for _, p := range pods {
		t.Logf("%s exported %v bytes", p.Name, podMetric(t, s.c, p, "kollect_exporter_export_bytes_total"))
	}
}

func (s *scenario) upgrade(t *testing.T) {
	ctx := t.Context()
	before := map[string]int64{}
	ds, err := s.c.Client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range ds.Items {
		before[d.Name] = d.Generation
	}
	// The database exporter keeps the 3 replicas it was scaled to: --reuse-values keeps
	// what was set, and the chart's replica count is set to 3 as well.
	run(t, s.c.Admin, s.helm, s.helmArgs("upgrade", "--reuse-values", "--set", "memoryLimitPercent=80",
		"--set", "exporters.database.replicas=3")...)
	s.addWorkload(t) // during the rollout
	waitFor(t, 6*time.Minute, "the rollout", func() error {
		ds, err := s.c.Client.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		for _, d := range ds.Items {
			if d.Generation == before[d.Name] {
				return fmt.Errorf("deployment/%s not changed by the upgrade (generation %d)", d.Name, d.Generation)
			}
		}
		return workloadsReady(ctx, s.c.Client, ns)
	})
	s.addWorkload(t) // after it
	waitFor(t, 4*time.Minute, "every workload in every inventory after the upgrade", func() error {
		return allRows(ctx, s.dsn, inventories+12, s.workloads)
	})
}

func (s *scenario) uninstall(t *testing.T) {
	ctx := t.Context()
	run(t, s.c.Admin, s.helm, "uninstall", "kollect", "--namespace", ns, "--wait", "--timeout", "3m")
	run(t, s.c.Admin, s.helm, "uninstall", "kollect-crds", "--namespace", ns)
	waitFor(t, 3*time.Minute, "no pods in "+ns, func() error {
		pods, err := s.c.Client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
		if err != nil {
			return err
		}
		if n := len(pods.Items); n > 0 {
			return fmt.Errorf("%d pods left%s", n, podProblems(ctx, s.c.Client, ns))
		}
		return nil
	})
	out := run(t, s.c.Admin, s.kubectl, "get", "crd", "-o", "name")
	if n := strings.Count(out, ".kollect.dev"); n == 0 {
		t.Fatalf("no Kollect CRD left after helm uninstall:\n%s", out)
	}
	if _, err := s.c.Client.CoreV1().Secrets("team-a").Get(ctx, "postgres-credentials", metav1.GetOptions{}); apierrors.IsNotFound(err) {
		t.Fatal("the tenant's Secret went with the release")
	}
	t.Logf("CRDs kept:\n%s", out)
}
