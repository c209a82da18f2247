package chart_test

import (
	"context"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/nats-io/nats-server/v2/server"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"kollect.dev/kollect/pkg/testenv"
)

// e2eSets are the values of the end-to-end run: the chart's defaults with the database
// exporter as the only exporter, one NATS server whose users' passwords come from a Secret
// the test fills, sinks on loopback allowed, and no webhook (the API server cannot reach a
// webhook Service from here; admission rules are covered by control's own tests). Without the
// webhook no requester is recorded, so the requester check (docs/security.md, F6; control's
// requester tests) is off too, or the sinks naming Secrets would never run. The query service is
// off: it needs the API server to proxy to it (services/query and the chart's apiserver tests).
var e2eSets = []string{"query.enabled=false",
	"nats.replicas=1", "nats.auth.existingSecret=e2e-nats-users", "allowInClusterSinks=true",
	"control.webhook.enabled=false", "control.tenancy.verifyRequesters=false", "exporters.snapshot.enabled=false", "exporters.event.enabled=false",
}

var e2eServices = map[string]string{
	"control": "cmd/kollect-control", "collector": "cmd/kollect-collector", "aggregator": "cmd/kollect-aggregator",
	"database-exporter": "cmd/kollect-databaseexporter",
}

// buildServices compiles the service binaries the end-to-end test runs.
func buildServices(t *testing.T) map[string]string {
	t.Helper()
	dir, out := t.TempDir(), map[string]string{}
	for name, pkg := range e2eServices {
		bin := filepath.Join(dir, name)
		cmd := exec.Command("go", "build", "-o", bin, "./"+pkg)
		cmd.Dir = repoPath(t, ".")
		if b, err := cmd.CombinedOutput(); err != nil {
			t.Fatalf("go build %s: %v\n%s", pkg, err, b)
		}
		out[name] = bin
	}
	return out
}

// chartNATS starts an embedded NATS server from the chart's rendered nats.conf, changing only
// where it listens and stores (loopback, random port, a temporary folder).
func chartNATS(t *testing.T, objs []*unstructured.Unstructured, passwords map[string]string) string {
	t.Helper()
	cm := find(t, objs, "ConfigMap", "kollect-nats")
	conf, _, _ := unstructured.NestedString(cm.Object, "data", "nats.conf")
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POD_NAME", "kollect-nats-0")
	for svc, pw := range passwords {
		t.Setenv(strings.ToUpper(strings.ReplaceAll(svc, "-", "_"))+"_PASSWORD", pw)
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("parse the chart's nats.conf: %v", err)
	}
	opts.Host, opts.Port, opts.HTTPPort, opts.StoreDir, opts.PidFile, opts.NoSigs = "127.0.0.1", -1, 0, t.TempDir(), "", true
	opts.NoLog = true
	s, err := server.NewServer(opts)
	if err != nil {
		t.Fatalf("start NATS: %v", err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS is not ready")
	}
	return s.Addr().String()
}

// impersonating writes a kubeconfig that reaches the API server as service account sa: the
// admin certificate plus impersonation, so only the chart's RBAC for sa applies.
func impersonating(t *testing.T, k *testenv.Kube, sa string) string {
	t.Helper()
	cfg := clientcmdapi.NewConfig()
	cfg.Clusters["envtest"] = &clientcmdapi.Cluster{Server: k.Config.Host, CertificateAuthorityData: k.Config.CAData}
	cfg.AuthInfos[sa] = &clientcmdapi.AuthInfo{ClientCertificateData: k.Config.CertData, ClientKeyData: k.Config.KeyData,
		Token: k.Config.BearerToken, Impersonate: "system:serviceaccount:" + namespace + ":" + sa,
		ImpersonateGroups: []string{"system:serviceaccounts", "system:serviceaccounts:" + namespace, "system:authenticated"}}
	cfg.Contexts[sa] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: sa}
	cfg.CurrentContext = sa
	path := filepath.Join(t.TempDir(), sa+".kubeconfig")
	if err := clientcmd.WriteToFile(*cfg, path); err != nil {
		t.Fatal(err)
	}
	return path
}

// podEnv is the environment the kubelet would give the Deployment's container: literal values,
// the pod's name and namespace, and Secret keys from secrets.
func podEnv(t *testing.T, d *unstructured.Unstructured, pod string, secrets map[string]map[string]string) map[string]string {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	env := map[string]string{}
	for _, e := range cs[0].(map[string]any)["env"].([]any) {
		e := e.(map[string]any)
		name := e["name"].(string)
		switch {
		case e["value"] != nil:
			env[name] = e["value"].(string)
		default:
			from := e["valueFrom"].(map[string]any)
			if f, ok := from["fieldRef"].(map[string]any); ok {
				env[name] = map[string]string{"metadata.name": pod, "metadata.namespace": namespace}[f["fieldPath"].(string)]
			} else if s, ok := from["secretKeyRef"].(map[string]any); ok {
				env[name] = secrets[s["name"].(string)][s["key"].(string)]
			} else if r, ok := from["resourceFieldRef"].(map[string]any); ok {
				env[name] = containerResource(t, cs[0].(map[string]any), r["resource"].(string))
			}
		}
		if env[name] == "" {
			t.Fatalf("%s: env %s has no value", d.GetName(), name)
		}
	}
	return env
}

// containerResource resolves a resourceFieldRef the way the kubelet does with the default
// divisor: the container's limits.memory in bytes.
func containerResource(t *testing.T, c map[string]any, ref string) string {
	t.Helper()
	kind, res, _ := strings.Cut(ref, ".")
	v, _, _ := unstructured.NestedString(c, "resources", kind, res)
	q, err := resource.ParseQuantity(v)
	if err != nil {
		t.Fatalf("resourceFieldRef %s = %q: %v", ref, v, err)
	}
	return strconv.FormatInt(q.Value(), 10)
}

var (
	natsHost  = regexp.MustCompile(`nats://[^/,]+:4222`)
	bindAddrs = regexp.MustCompile(`^--(metrics-bind-address|health-probe-bind-address)=:\d+$`)
)

// service is one started service process.
type service struct {
	name    string
	metrics string // host:port of /metrics, "" when it serves none
	log     string
}

// startService runs the Deployment's binary with the chart's args as pod pod. The only
// rewrites: the NATS host becomes the embedded server and bind addresses loopback ports.
func startService(t *testing.T, bin string, d *unstructured.Unstructured, pod, natsAddr, kubeconfig string, secrets map[string]map[string]string) service {
	t.Helper()
	env := podEnv(t, d, pod, secrets)
	svc := service{name: pod, log: filepath.Join(t.TempDir(), pod+".log")}
	var args []string
	for _, a := range containerArgsWith(t, d, env) {
		a = natsHost.ReplaceAllString(a, "nats://"+natsAddr)
		if m := bindAddrs.FindStringSubmatch(a); m != nil {
			port, err := testenv.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			a = fmt.Sprintf("--%s=127.0.0.1:%d", m[1], port)
			if m[1] == "metrics-bind-address" {
				svc.metrics = fmt.Sprintf("127.0.0.1:%d", port)
			}
		}
		args = append(args, a)
	}
	if svc.metrics != "" {
		// metricSum scrapes plain HTTP on 127.0.0.1 (pkg/app tests the secured /metrics).
		args = append(args, "--metrics-secure=false")
	}
	cmd := exec.Command(bin, args...)
	cmd.Env = []string{"HOME=" + t.TempDir(), "PATH=/usr/bin:/bin"}
	for k, v := range env {
		cmd.Env = append(cmd.Env, k+"="+v)
	}
	if kubeconfig != "" {
		cmd.Env = append(cmd.Env, "KUBECONFIG="+kubeconfig)
	}
	logf, err := os.Create(svc.log)
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", pod, err)
	}
	done := make(chan struct{}) // closed when the process has exited; a signalled exit status says nothing more
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(15 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			t.Errorf("%s did not stop within 15s of SIGTERM", pod)
		}
		logf.Close()
		if t.Failed() {
			b, _ := os.ReadFile(svc.log)
			t.Logf("--- log of %s (last 3000 bytes):\n%s", pod, tail(b, 3000))
		}
	})
	return svc
}

func tail(b []byte, n int) string {
	if len(b) > n {
		b = b[len(b)-n:]
	}
	return string(b)
}

// containerArgsWith expands the Deployment's args with env, as the kubelet does.
func containerArgsWith(t *testing.T, d *unstructured.Unstructured, env map[string]string) []string {
	t.Helper()
	cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
	var out []string
	for _, a := range cs[0].(map[string]any)["args"].([]any) {
		out = append(out, envRef.ReplaceAllStringFunc(a.(string), func(ref string) string {
			return env[envRef.FindStringSubmatch(ref)[1]]
		}))
	}
	return out
}

// metricSum adds up the samples of metric name scraped from addr; -1 when unreachable.
func metricSum(addr, name string) float64 {
	resp, err := http.Get("http://" + addr + "/metrics")
	if err != nil {
		return -1
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	var sum float64
	for _, line := range strings.Split(string(b), "\n") {
		if strings.HasPrefix(line, name+"{") || strings.HasPrefix(line, name+" ") {
			f := strings.Fields(line)
			v, _ := strconv.ParseFloat(f[len(f)-1], 64)
			sum += v
		}
	}
	return sum
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

// createSecret creates a Secret in ns with data.
func createSecret(t *testing.T, k *testenv.Kube, ns, name string, data map[string]string) {
	t.Helper()
	s := &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, StringData: data}
	if err := k.Client.Create(t.Context(), s); err != nil {
		t.Fatalf("create Secret %s/%s: %v", ns, name, err)
	}
}

func TestServicesRunWithTheChartsArgsAndRBAC(t *testing.T) {
	const inventories, workloads = 8, 3
	bins := buildServices(t)
	k := startKube(t)
	a := newApplier(t, k)
	objs := decode(t, render(t, "", e2eSets...))
	applyRBAC(t, a, objs)
	passwords := map[string]string{}
	for _, s := range []string{"control", "collector", "aggregator", "snapshot-exporter", "database-exporter", "event-exporter"} {
		passwords[s] = "pw-" + strings.ReplaceAll(s, "-", "")
	}
	secrets := map[string]map[string]string{"e2e-nats-users": passwords}
	natsAddr := chartNATS(t, objs, passwords)
	pg := testenv.StartPostgres(t)
	dsn := pg.CreateDatabase(t, "inventory")

	exporters, all := map[string]service{}, map[string]service{}
	limits := map[string]float64{} // pod -> the Go soft limit the chart asks for
	for _, d := range objs {
		if d.GetKind() != "Deployment" {
			continue
		}
		component := d.GetLabels()["app.kubernetes.io/component"]
		bin, ok := bins[component]
		if !ok {
			t.Fatalf("no binary built for %s", component)
		}
		kubeconfig := ""
		if mount, _, _ := unstructured.NestedBool(d.Object, "spec", "template", "spec", "automountServiceAccountToken"); mount {
			sa, _, _ := unstructured.NestedString(d.Object, "spec", "template", "spec", "serviceAccountName")
			kubeconfig = impersonating(t, k, sa)
		}
		pods := []string{d.GetName() + "-0"}
		if component == "database-exporter" {
			pods = []string{d.GetName() + "-a", d.GetName() + "-b"} // scaled to two processes
		}
		for _, pod := range pods {
			s := startService(t, bin, d, pod, natsAddr, kubeconfig, secrets)
			all[pod] = s
			cs, _, _ := unstructured.NestedSlice(d.Object, "spec", "template", "spec", "containers")
			limit, _ := strconv.ParseFloat(containerResource(t, cs[0].(map[string]any), "limits.memory"), 64)
			limits[pod] = float64(int64(limit * 0.85))
			if component == "database-exporter" {
				exporters[pod] = s
			}
		}
	}

	for i := range workloads {
		if err := a.apply(t.Context(), e2eDeployment(fmt.Sprintf("web-%d", i)), false); err != nil {
			t.Fatal(err)
		}
	}
	createSecret(t, k, "team-a", "postgres-credentials", map[string]string{"dsn": dsn})
	for _, o := range decode(t, []byte(e2eResources(inventories))) {
		if err := a.apply(t.Context(), o, false); err != nil {
			t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
		}
	}

	ok := t.Run("every inventory reaches PostgreSQL with every workload", func(t *testing.T) {
		testenv.Eventually(t, 4*time.Minute, "rows in PostgreSQL", func() error {
			got, err := inventoryRows(t.Context(), dsn)
			if err != nil {
				return err
			}
			for i := range inventories {
				if n := got[fmt.Sprintf("inventory-%d", i)]; n != workloads {
					return fmt.Errorf("inventory-%d has %d rows, want %d (all: %v)", i, n, workloads, got)
				}
			}
			return nil
		}, testenv.Every(200*time.Millisecond))
	})
	if !ok {
		return
	}
	t.Run("every service's Go memory limit is 85% of its container's limit", func(t *testing.T) {
		for pod, s := range all {
			if s.metrics == "" {
				continue
			}
			if got := metricSum(s.metrics, "go_gc_gomemlimit_bytes"); got != limits[pod] {
				t.Errorf("%s: go_gc_gomemlimit_bytes = %v, want %v", pod, got, limits[pod])
			}
		}
	})
	t.Run("both database exporter processes exported a share", func(t *testing.T) {
		testenv.Eventually(t, 30*time.Second, "exports on both processes", func() error {
			for pod, s := range exporters {
				if n := metricSum(s.metrics, "kollect_exporter_export_bytes_total"); n <= 0 {
					return fmt.Errorf("%s exported %v bytes", pod, n)
				}
			}
			return nil
		}, testenv.Every(200*time.Millisecond))
		for pod, s := range exporters {
			t.Logf("%s exported %v bytes", pod, metricSum(s.metrics, "kollect_exporter_export_bytes_total"))
		}
	})
	t.Run("a change made while two exporters share the work reaches every inventory", func(t *testing.T) {
		if err := a.apply(t.Context(), e2eDeployment(fmt.Sprintf("web-%d", workloads)), false); err != nil {
			t.Fatal(err)
		}
		testenv.Eventually(t, 2*time.Minute, "the new workload in PostgreSQL", func() error {
			got, err := inventoryRows(t.Context(), dsn)
			if err != nil {
				return err
			}
			for i := range inventories {
				if n := got[fmt.Sprintf("inventory-%d", i)]; n != workloads+1 {
					return fmt.Errorf("inventory-%d has %d rows, want %d", i, n, workloads+1)
				}
			}
			return nil
		}, testenv.Every(200*time.Millisecond))
	})
}
