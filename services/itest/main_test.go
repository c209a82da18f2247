package itest

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"github.com/twmb/franz-go/pkg/kfake"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/dev"
)

// readerRole may read everything; each scenario's namespace binds it to
// the namespace's kollect ServiceAccount, the identity its Targets act as.
const readerRole = "kollect-itest-reader"

// sys is the one system shared by every scenario of the test binary.
var sys struct {
	kube    *testenv.Kube
	k8s     client.Client
	logFile string
	stops   []func()
	mu      sync.Mutex
}

// TestMain starts the API server and every service once, runs the
// scenarios, then stops everything it started (sink peers included).
func TestMain(m *testing.M) {
	os.Exit(run(m))
}

func run(m *testing.M) int {
	kube, err := testenv.NewKube()
	if err != nil {
		fmt.Fprintf(os.Stderr, "start kube-apiserver: %v\n", err)
		return 1
	}
	sys.kube, sys.k8s = kube, kube.Client
	defer func() { _ = kube.Stop() }()
	if err := kube.Client.Create(context.Background(), &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: readerRole},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"*"}, Resources: []string{"*"}, Verbs: []string{"get", "list", "watch"}}}}); err != nil {
		fmt.Fprintf(os.Stderr, "create ClusterRole %s: %v\n", readerRole, err)
		return 1
	}
	logs, err := os.CreateTemp("", "kollect-itest-*.log")
	if err != nil {
		fmt.Fprintf(os.Stderr, "create log file: %v\n", err)
		return 1
	}
	sys.logFile = logs.Name()
	ctrllog.SetLogger(fileLogger(logs).WithName("controller-runtime"))
	defer func() { _ = logs.Close() }()
	ctx, cancel := context.WithCancel(context.Background())
	ready := make(chan struct{})
	done := make(chan error, 1)
	go func() {
		done <- dev.Run(ctx, dev.Options{
			Rest:                kube.Config,
			AllowInClusterSinks: true,
			MinExportInterval:   time.Second, // the drift tests re-export every few seconds
			Tune:                tune,
			Ready:               func(string) { close(ready) },
			Log:                 fileLogger(logs),
		})
	}()
	select {
	case <-ready:
	case err := <-done:
		fmt.Fprintf(os.Stderr, "dev.Run ended before it was ready: %v\n", err)
		cancel()
		return 1
	case <-time.After(time.Minute):
		fmt.Fprintln(os.Stderr, "dev.Run not ready within a minute")
		cancel()
		return 1
	}
	code := m.Run()
	cancel()
	if err := <-done; err != nil {
		fmt.Fprintf(os.Stderr, "dev.Run: %v\n", err)
		code = 1
	}
	sys.mu.Lock()
	for i := len(sys.stops) - 1; i >= 0; i-- {
		sys.stops[i]()
	}
	sys.mu.Unlock()
	if code != 0 {
		fmt.Fprintf(os.Stderr, "service logs: %s\n", sys.logFile)
	} else {
		_ = os.Remove(sys.logFile)
	}
	return code
}

// tune shortens the exporters' retries so that failures and recoveries show
// within seconds.
func tune(c *exporter.Config) {
	c.RetryInitial, c.RetryMax = 50*time.Millisecond, time.Second
	c.BreakerCooldown, c.SecretCheckInterval = time.Second, time.Second
}

// fileLogger writes every service's logs, one line each, to f.
func fileLogger(f *os.File) logr.Logger {
	var mu sync.Mutex
	return funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(f, "%s %s %s\n", time.Now().UTC().Format("15:04:05.000"), prefix, args)
	}, funcr.Options{Verbosity: 1})
}

// peer starts a sink server once per test binary, on first use, and stops
// it after every scenario ran.
func peer[T any](start func() (T, func(), error)) func(t *testing.T) T {
	var once sync.Once
	var v T
	var err error
	return func(t *testing.T) T {
		t.Helper()
		once.Do(func() {
			var stop func()
			v, stop, err = start()
			if err == nil {
				sys.mu.Lock()
				sys.stops = append(sys.stops, stop)
				sys.mu.Unlock()
			}
		})
		if err != nil {
			t.Fatalf("start peer: %v", err)
		}
		return v
	}
}

var (
	gitServer = peer(func() (*testenv.Git, func(), error) {
		g, err := testenv.NewGit("", testenv.GitOptions{})
		return g, func() { _ = g.Stop() }, err
	})
	postgresServer = peer(func() (*testenv.Postgres, func(), error) {
		pg, err := testenv.NewPostgres("")
		return pg, func() { _ = pg.Stop() }, err
	})
	s3Server = peer(func() (*testenv.S3, func(), error) {
		s, err := testenv.NewS3("")
		return s, func() { _ = s.Stop() }, err
	})
	natsServer = peer(func() (*testenv.NATS, func(), error) {
		dir, err := os.MkdirTemp("", "kollect-itest-nats-")
		if err != nil {
			return nil, nil, err
		}
		n, err := testenv.NewNATS(dir, -1)
		return n, func() { n.Stop(); _ = os.RemoveAll(dir) }, err
	})
	kafkaCluster = peer(func() (*kfake.Cluster, func(), error) {
		c, err := kfake.NewCluster(kfake.NumBrokers(1), kfake.AllowAutoTopicCreation())
		return c, func() { c.Close() }, err
	})
)
