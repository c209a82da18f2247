//go:build e2ecluster

package e2e_test

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kollect.dev/kollect/pkg/testenv"
)

// run runs a tool (helm, kubectl) against the cluster and returns its output.
func run(t *testing.T, kubeconfig, bin string, args ...string) string {
	t.Helper()
	cmd := exec.CommandContext(t.Context(), bin, args...)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig, "HELM_CACHE_HOME="+t.TempDir(), "HELM_CONFIG_HOME="+t.TempDir())
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Run(); err != nil {
		t.Fatalf("%s %s: %v\n%s", bin, strings.Join(args, " "), err, out.String())
	}
	return out.String()
}

// forward accepts TCP connections on addr and pipes each to target until the test ends:
// PostgreSQL listens on loopback, pods reach the node's address.
func forward(t *testing.T, addr, target string) string {
	t.Helper()
	l, err := net.Listen("tcp", addr)
	if err != nil {
		t.Fatalf("listen %s: %v", addr, err)
	}
	t.Cleanup(func() { l.Close() })
	go func() {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			go func() {
				defer c.Close()
				u, err := net.Dial("tcp", target)
				if err != nil {
					return
				}
				defer u.Close()
				go func() { _, _ = io.Copy(u, c); _ = u.(*net.TCPConn).CloseWrite() }()
				_, _ = io.Copy(c, u)
			}()
		}
	}()
	return l.Addr().String()
}

// inventoryRows counts the rows of each inventory in the sink table.
func inventoryRows(ctx context.Context, dsn string) (map[string]int, error) {
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		return nil, err
	}
	defer conn.Close(ctx)
	rows, err := conn.Query(ctx, `SELECT inventory_name, count(*) FROM public.kollect_rows GROUP BY inventory_name`)
	if err != nil {
		return nil, err
	}
	out := map[string]int{}
	for rows.Next() {
		var name string
		var n int
		if err := rows.Scan(&name, &n); err != nil {
			return nil, err
		}
		out[name] = n
	}
	return out, rows.Err()
}

// allRows checks every inventory holds want rows.
func allRows(ctx context.Context, dsn string, inventories, want int) error {
	got, err := inventoryRows(ctx, dsn)
	if err != nil {
		return err
	}
	for i := range inventories {
		if n := got[fmt.Sprintf("inventory-%d", i)]; n != want {
			return fmt.Errorf("inventory-%d has %d rows, want %d (all: %v)", i, n, want, got)
		}
	}
	return nil
}

// workloadsReady checks every Deployment and StatefulSet in ns has all its replicas
// updated and ready.
func workloadsReady(ctx context.Context, c kubernetes.Interface, ns string) error {
	ds, err := c.AppsV1().Deployments(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	var waiting []string
	for _, d := range ds.Items {
		want := int32(1)
		if d.Spec.Replicas != nil {
			want = *d.Spec.Replicas
		}
		s := d.Status
		if d.Generation != s.ObservedGeneration || s.UpdatedReplicas != want || s.ReadyReplicas != want || s.Replicas != want {
			waiting = append(waiting, fmt.Sprintf("deployment/%s %d/%d ready, %d updated", d.Name, s.ReadyReplicas, want, s.UpdatedReplicas))
		}
	}
	ss, err := c.AppsV1().StatefulSets(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return err
	}
	for _, s := range ss.Items {
		want := *s.Spec.Replicas
		if s.Generation != s.Status.ObservedGeneration || s.Status.ReadyReplicas != want || s.Status.UpdatedReplicas != want {
			waiting = append(waiting, fmt.Sprintf("statefulset/%s %d/%d ready", s.Name, s.Status.ReadyReplicas, want))
		}
	}
	if len(ds.Items)+len(ss.Items) == 0 {
		return fmt.Errorf("no workloads in %s", ns)
	}
	if len(waiting) > 0 {
		return fmt.Errorf("waiting: %s%s", strings.Join(waiting, "; "), podProblems(ctx, c, ns))
	}
	return nil
}

// podProblems summarises the pods of ns that are not running, for error messages.
func podProblems(ctx context.Context, c kubernetes.Interface, ns string) string {
	pods, err := c.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		return ""
	}
	var out []string
	for _, p := range pods.Items {
		for _, s := range p.Status.ContainerStatuses {
			switch {
			case s.State.Waiting != nil:
				out = append(out, fmt.Sprintf("%s: %s %s", p.Name, s.State.Waiting.Reason, s.State.Waiting.Message))
			case s.State.Terminated != nil:
				out = append(out, fmt.Sprintf("%s: terminated %s", p.Name, s.State.Terminated.Reason))
			case !s.Ready:
				out = append(out, p.Name+": not ready")
			}
		}
		if p.Status.Phase == corev1.PodPending && len(p.Status.ContainerStatuses) == 0 {
			for _, cond := range p.Status.Conditions {
				if cond.Status != corev1.ConditionTrue && cond.Message != "" {
					out = append(out, fmt.Sprintf("%s: %s", p.Name, cond.Message))
				}
			}
		}
	}
	if len(out) == 0 {
		return ""
	}
	return " (" + strings.Join(out, "; ") + ")"
}

// waitFor polls check every 500ms until it returns nil, failing the test after
// within, and returns how long it waited: the scenario reports its timings.
func waitFor(t *testing.T, within time.Duration, what string, check func() error) time.Duration {
	t.Helper()
	t0 := time.Now()
	testenv.Eventually(t, within, what, check, testenv.Every(500*time.Millisecond))
	return time.Since(t0)
}
