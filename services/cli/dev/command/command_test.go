package command

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli"
	"kollect.dev/kollect/services/cli/dev"
	"kollect.dev/kollect/services/cli/internal/devbus"
)

// syncBuffer is a bytes.Buffer safe for the command's goroutines.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

func (s *syncBuffer) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.String()
}

// TestDevExportsFromAKubeconfigAndStopsOnCancel runs `kollect dev` against
// a real API server through a kubeconfig file, the way a user runs it
// against a cluster: an inventory bound to a PostgreSQL sink gets its rows,
// and cancelling stops everything with exit status 0. It also serves the
// process's profiles on --pprof-bind-address.
func TestDevExportsFromAKubeconfigAndStopsOnCancel(t *testing.T) {
	t.Setenv(devbus.EnvFile, filepath.Join(t.TempDir(), "dev-bus.json"))
	t.Setenv(devbus.EnvQueryFile, filepath.Join(t.TempDir(), "dev-query.json"))
	kube := testenv.StartKube(t)
	pg := testenv.StartPostgres(t)
	dsn := pg.CreateDatabase(t, "dev")
	kubeconfig := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(kubeconfig, kube.Env.KubeConfig, 0o600); err != nil {
		t.Fatal(err)
	}
	pprofPort, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	pprofAddr := fmt.Sprintf("127.0.0.1:%d", pprofPort)
	metricsPort := freePortRun(t, len(dev.Services()))
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	var stderr syncBuffer
	done := make(chan int, 1)
	go func() {
		done <- Main(ctx, []string{"--kubeconfig", kubeconfig, "--nats-port", "-1", "--install-crds",
			"--allow-in-cluster-sinks", "--pprof-bind-address", pprofAddr, "--metrics-port", strconv.Itoa(metricsPort)},
			Streams{Out: &bytes.Buffer{}, Err: &stderr})
	}()
	// kollect dev sets the process's global loggers (klog, controller-runtime)
	// first, before it applies the CRDs; this test's own clients use them,
	// so they start after that, as in any process.
	testenv.Eventually(t, time.Minute, "kollect dev applied the CRDs", func() error {
		select {
		case code := <-done:
			t.Fatalf("kollect dev exited with %d:\n%s", code, stderr.String())
		default:
		}
		if !strings.Contains(stderr.String(), "CRDs applied") {
			return errors.New("not yet")
		}
		return nil
	})
	for _, doc := range strings.Split(fmt.Sprintf(devResources, dsn), "\n---\n") {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(doc), &u.Object); err != nil {
			t.Fatal(err)
		}
		if err := kube.Client.Create(context.Background(), u); err != nil {
			t.Fatalf("create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
	testenv.Eventually(t, 90*time.Second, "the rows of kollect dev", func() error {
		if names := rowNames(t, dsn); strings.Join(names, ",") != "api,web" {
			select {
			case code := <-done:
				t.Fatalf("kollect dev exited with %d:\n%s", code, stderr.String())
			default:
			}
			return fmt.Errorf("rows %v, want api,web; stderr:\n%s", names, stderr.String())
		}
		return nil
	}, testenv.Every(100*time.Millisecond))
	// kollect deadletters reads the history API kollect dev serves on
	// loopback (the cluster serves none), with the kubeconfig's
	// credentials and no bus connection.
	testenv.Eventually(t, 30*time.Second, "kollect deadletters through kollect dev's query API", func() error {
		var out, errOut bytes.Buffer
		code := cli.Main(ctx, []string{"--kubeconfig", kubeconfig, "deadletters", "list", "-n", "shop", "-o", "json"},
			cli.Streams{Out: &out, Err: &errOut})
		if code != 0 || strings.TrimSpace(out.String()) != "[]" {
			return fmt.Errorf("exit %d, stdout %q, stderr %q", code, out.String(), errOut.String())
		}
		return nil
	})
	if !strings.Contains(stderr.String(), "CRDs applied") || !strings.Contains(stderr.String(), "all services running") {
		t.Errorf("stderr lacks the progress lines:\n%s", stderr.String())
	}
	resp, err := http.Get("http://" + pprofAddr + "/debug/pprof/goroutine?debug=1") //nolint:noctx // loopback test URL
	if err != nil {
		t.Fatalf("GET the dev process's goroutine profile: %v", err)
	}
	profile, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(profile), "goroutine profile") {
		t.Errorf("GET /debug/pprof/goroutine = %d, %d bytes; want the goroutine profile", resp.StatusCode, len(profile))
	}
	for svc, metric := range map[busv1.Service]string{busv1.ServiceControl: "controller_runtime_reconcile_total",
		busv1.ServiceCollector: "kollect_build_info", busv1.FamilyDatabase.Exporter(): "kollect_build_info"} {
		addr := dev.Options{MetricsPort: metricsPort}.MetricsAddress(svc)
		if body := get(t, "http://"+addr+"/metrics"); !strings.Contains(body, metric) {
			t.Errorf("%s's /metrics at %s lacks %s:\n%.300s", svc, addr, metric, body)
		}
	}
	if strings.Contains(stderr.String(), "log.SetLogger(...) was never called") {
		t.Errorf("controller-runtime's logger is not set:\n%s", stderr.String())
	}
	cancel()
	select {
	case code := <-done:
		if code != 0 {
			t.Fatalf("kollect dev exited with %d after cancel:\n%s", code, stderr.String())
		}
	case <-time.After(30 * time.Second):
		t.Fatal("kollect dev did not stop within 30s of cancel")
	}
}

// get returns the body of a loopback URL.
func get(t *testing.T, url string) string {
	t.Helper()
	resp, err := http.Get(url) //nolint:noctx // loopback test URL
	if err != nil {
		t.Fatalf("GET %s: %v", url, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return string(b)
}

// freePortRun returns the first of n consecutive free loopback ports.
// freePortRun returns the first of n consecutive ports free on 127.0.0.1.
// It picks them below the kernel's ephemeral range
// (net.ipv4.ip_local_port_range): a port checked free there could be taken
// by any process's outgoing connection before kollect dev binds it, a port
// below it only by a listener that asks for it by number.
func freePortRun(t *testing.T, n int) int {
	t.Helper()
	low := ephemeralLow(t)
	const floor = 10000
	if low-floor < 10*n {
		t.Fatalf("the ephemeral range starts at %d, too low for a run of %d ports above %d", low, n, floor)
	}
	for range 100 {
		first := floor + rand.IntN(low-floor-n)
		ok := true
		for p := first; p < first+n && ok; p++ {
			l, err := net.Listen("tcp", fmt.Sprintf("127.0.0.1:%d", p))
			if err != nil {
				ok = false
				continue
			}
			_ = l.Close()
		}
		if ok {
			return first
		}
	}
	t.Fatalf("no %d consecutive free ports below %d", n, low)
	return 0
}

// ephemeralLow returns the first port of the kernel's ephemeral range.
func ephemeralLow(t *testing.T) int {
	t.Helper()
	b, err := os.ReadFile("/proc/sys/net/ipv4/ip_local_port_range")
	if err != nil {
		return 32768 // Linux's default
	}
	f := strings.Fields(string(b))
	if len(f) != 2 {
		t.Fatalf("ip_local_port_range: %q", b)
	}
	low, err := strconv.Atoi(f[0])
	if err != nil {
		t.Fatalf("ip_local_port_range: %v", err)
	}
	return low
}

// rowNames returns the resource names in the sink's table, or nil while the
// table does not exist.
func rowNames(t *testing.T, dsn string) []string {
	t.Helper()
	conn, err := pgx.Connect(context.Background(), dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.Background()) }()
	rows, err := conn.Query(context.Background(), "SELECT resource_name FROM public.inventory ORDER BY resource_name")
	if err != nil {
		return nil
	}
	names, err := pgx.CollectRows(rows, pgx.RowTo[string])
	if err != nil {
		return nil
	}
	return names
}

const devResources = `apiVersion: v1
kind: Namespace
metadata: {name: shop}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: web, namespace: shop, labels: {app: web}}
data: {image: "nginx:1.27"}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: api, namespace: shop, labels: {app: api}}
data: {image: "api:2.1"}
---
apiVersion: v1
kind: Secret
metadata: {name: pg, namespace: shop}
stringData: {dsn: "%s"}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: configs, namespace: shop}
spec:
  targetGVK: {version: v1, kind: ConfigMap}
  attributes:
  - {name: image, path: "$.data.image", type: string}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: kollect-read, namespace: shop}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: kollect-read, namespace: shop}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: kollect-read}
subjects:
- {kind: ServiceAccount, name: kollect, namespace: shop}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: configs, namespace: shop}
spec:
  profileRef: {name: configs}
  includedNamespaces: [shop]
  labelSelector: {matchExpressions: [{key: app, operator: Exists}]}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: pg, namespace: shop}
spec:
  type: postgres
  secretRef: {name: pg}
  postgres: {table: inventory}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: shop, namespace: shop}
spec:
  databaseSinkRefs: [pg]`

func TestDevRefusesAnInvalidAmbientCredentialsNamespace(t *testing.T) {
	var stderr bytes.Buffer
	code := Main(context.Background(), []string{"--kubeconfig", filepath.Join(t.TempDir(), "absent"),
		"--ambient-credentials-namespaces", "team-a,Not_A_Namespace"}, Streams{Out: &bytes.Buffer{}, Err: &stderr})
	if code != 2 || !strings.Contains(stderr.String(), "--ambient-credentials-namespaces") {
		t.Fatalf("exit %d, stderr %q: want 2 naming the flag", code, stderr.String())
	}
}
