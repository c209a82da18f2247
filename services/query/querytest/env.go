package querytest

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/query"
	"kollect.dev/kollect/services/query/internal/server"
)

// Env is a kube-apiserver aggregating a running query service, on an
// embedded, provisioned bus.
type Env struct {
	Kube *testenv.Kube
	NATS *testenv.NATS
	// Kubeconfig is the path of an admin kubeconfig (system:masters).
	Kubeconfig string
}

// Limits are the query service's limits in Start: pages small, so that
// tests page with a handful of rows, diffs of at most 40 rows, and a
// dead-letter list reads at most 4 dead letters a page.
var Limits = func() server.Limits {
	l := server.DefaultLimits()
	l.Revisions, l.Rows, l.DefaultRows, l.DiffRows = 3, 2, 2, 40
	l.DeadLetterScan = 4
	return l
}()

// Start starts kube-apiserver with aggregation, NATS, and the query
// service registered as query.kollect.dev/v1alpha1, and waits until the
// API server serves the group. Everything stops when the test ends.
func Start(t testing.TB) *Env {
	t.Helper()
	kube, agg := testenv.StartAggregatingKube(t, "kollect-query.default.svc")
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	e := &Env{Kube: kube, NATS: n, Kubeconfig: adminKubeconfig(t, kube)}
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	c := query.DefaultConfig()
	c.Log = logr.Discard()
	if os.Getenv("KOLLECT_QUERY_TEST_LOG") != "" { // the service's and the apiserver's logs on stderr
		c.Log = funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{LogTimestamp: true})
	}
	c.Server.Listener, c.Server.Port = l, l.Addr().(*net.TCPAddr).Port
	c.Server.CertFile, c.Server.KeyFile = agg.TLS.ServerCert, agg.TLS.ServerKey
	c.Server.Kubeconfig, c.Server.Limits = e.Kubeconfig, Limits
	done := make(chan error, 1)
	go func() { done <- query.RunWith(ctx, n.JS, c) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("query service: %v", err)
		}
	})
	if err := testenv.RegisterAPIService(ctx, kube, agg, queryv1.Group, queryv1.GroupVersion.Version, "kollect-query", c.Server.Port); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, 2*time.Minute, "the API server serves query.kollect.dev", func() error {
		cs, err := kubernetes.NewForConfig(kube.Config)
		if err != nil {
			return err
		}
		if _, err = cs.Discovery().ServerResourcesForGroupVersion(queryv1.GroupVersion.String()); err != nil {
			return fmt.Errorf("%w (APIService: %s)", err, apiServiceStatus(ctx, kube))
		}
		return nil
	})
	testenv.Eventually(t, time.Minute, "the query service has listed the inventories", func() error {
		body, code, err := Get(ctx, kube.Config, "/apis/"+queryv1.GroupVersion.String()+"/"+queryv1.ResourceClusterHistories)
		if code == http.StatusServiceUnavailable {
			return fmt.Errorf("%d: %s", code, body)
		}
		return err
	})
	return e
}

// adminKubeconfig writes a kubeconfig of a system:masters user.
func adminKubeconfig(t testing.TB, k *testenv.Kube) string {
	t.Helper()
	u, err := k.Env.ControlPlane.AddUser(envtest.User{Name: "query-admin", Groups: []string{"system:masters"}}, nil)
	if err != nil {
		t.Fatal(err)
	}
	b, err := u.KubeConfig()
	if err != nil {
		t.Fatal(err)
	}
	p := filepath.Join(t.TempDir(), "kubeconfig")
	if err := os.WriteFile(p, b, 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// As returns a REST config of the admin impersonating user (no groups
// but system:authenticated).
func (e *Env) As(user string) *rest.Config {
	c := rest.CopyConfig(e.Kube.Config)
	c.Impersonate = rest.ImpersonationConfig{UserName: user}
	return c
}

// Get requests path (an absolute API path with its query) as cfg's user
// and returns the body, or an error carrying the status code.
func Get(ctx context.Context, cfg *rest.Config, path string) ([]byte, int, error) {
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		return nil, 0, err
	}
	u, err := url.Parse(path)
	if err != nil {
		return nil, 0, err
	}
	req := cs.CoreV1().RESTClient().Get().AbsPath(u.Path)
	for k, vs := range u.Query() {
		for _, v := range vs {
			req = req.Param(k, v)
		}
	}
	var code int
	body, err := req.Do(ctx).StatusCode(&code).Raw()
	if err != nil && code == 0 {
		return nil, 0, fmt.Errorf("get %s: %w", path, err)
	}
	if err == nil && code != 200 {
		err = errors.New("unexpected status")
	}
	return body, code, err
}

// apiServiceStatus describes the APIService's conditions.
func apiServiceStatus(ctx context.Context, kube *testenv.Kube) string {
	u := &unstructured.Unstructured{}
	u.SetAPIVersion("apiregistration.k8s.io/v1")
	u.SetKind("APIService")
	if err := kube.Client.Get(ctx, client.ObjectKey{Name: queryv1.GroupVersion.Version + "." + queryv1.Group}, u); err != nil {
		return err.Error()
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	return fmt.Sprint(conds)
}
