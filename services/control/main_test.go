package control_test

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/zapr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control"
)

// shared is the API server, bus and control instance every test but the
// leader-election test uses; each test works in namespaces of its own.
var shared struct {
	kube      *testenv.Kube
	nats      *testenv.NATS
	kv        jetstream.KeyValue
	responder *responder
}

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctrl.SetLogger(zapr.NewLogger(zap.NewNop()))
	kube, err := testenv.NewKube()
	if err != nil {
		fmt.Fprintln(os.Stderr, "start kube-apiserver:", err)
		return 1
	}
	defer func() { _ = kube.Stop() }()
	dir, err := os.MkdirTemp("", "control-nats-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	defer os.RemoveAll(dir)
	n, err := testenv.NewNATS(dir, -1)
	if err != nil {
		fmt.Fprintln(os.Stderr, "start NATS:", err)
		return 1
	}
	defer n.Stop()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	kv, err := n.JS.KeyValue(ctx, bus.BucketConfig)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	shared.kube, shared.nats, shared.kv = kube, n, kv
	if err := kube.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: releaseNamespace}}); err != nil {
		fmt.Fprintln(os.Stderr, "create the release namespace:", err)
		return 1
	}
	shared.responder, err = startResponder(n.Conn)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	cfg := testConfig(kube.Config, n.URL, false)
	if cfg.Webhook, err = installWebhook(ctx, kube); err != nil {
		fmt.Fprintln(os.Stderr, "install webhook:", err)
		return 1
	}
	done := make(chan error, 1)
	go func() { done <- control.Run(ctx, cfg) }()
	// Objects created before the webhook listens are refused ("connection
	// refused"): a short run (go test -run) starts creating at once.
	if err := waitListening(ctx, cfg.Webhook.Host, cfg.Webhook.Port, done); err != nil {
		fmt.Fprintln(os.Stderr, "webhook:", err)
		return 1
	}
	code := m.Run()
	cancel()
	// A short run (go test -run) may end while control is still starting.
	if err := <-done; err != nil && !errors.Is(err, context.Canceled) {
		fmt.Fprintln(os.Stderr, "control:", err)
		return 1
	}
	return code
}

func testConfig(kube *rest.Config, natsURL string, leaderElection bool) control.Config {
	c := control.DefaultConfig()
	c.Kube.Rest, c.Bus.URL, c.ProvisionBus = kube, natsURL, false
	c.Metrics.BindAddress, c.Metrics.HealthProbeBindAddress = "0", "0"
	c.Leader.Enabled, c.Leader.Namespace = leaderElection, "default"
	c.Leader.LeaseDuration, c.Leader.RenewDeadline, c.Leader.RetryPeriod = 3*time.Second, 2*time.Second, 200*time.Millisecond
	c.ProbeTimeout, c.ProbeRetry = 2*time.Second, time.Second
	c.BusCheckInterval = 200 * time.Millisecond
	c.MinExportInterval = 10 * time.Second // the default, spelled out for the tests that name it
	c.Log = zapr.NewLogger(zap.NewNop())
	c.Webhook.Port = 0
	c.EventNamespace = releaseNamespace
	c.Webhook.Namespace = "default" // where the requester key is, as installWebhook's
	if v := os.Getenv("KOLLECT_SERVICE_ACCOUNT_ACCESS"); v != "" {
		c.ServiceAccountAccess = v // BenchmarkRevocation compares both
	}
	return c
}

// releaseNamespace is the namespace control runs in, in these tests.
const releaseNamespace = "kollect-release"

// responder stands in for the exporters' connection-test handlers until
// they exist: it answers every family's requests, failing sinks whose name
// starts with "bad-" (and refusing the credentials of those starting with
// "denied-"), answering the first probe of those starting with "pending-"
// as an exporter that has not seen the config yet, and counts requests per
// sink.
type responder struct {
	mu    sync.Mutex
	count map[busv1.SinkRef]int
}

func startResponder(nc *nats.Conn) (*responder, error) {
	r := &responder{count: map[busv1.SinkRef]int{}}
	for _, f := range busv1.Families() {
		_, err := nc.QueueSubscribe(bus.ConnTestSubject(f), bus.ConnTestQueue(f), func(m *nats.Msg) {
			var req busv1.ConnectionTestRequest
			_ = json.Unmarshal(m.Data, &req)
			r.mu.Lock()
			r.count[req.Sink]++
			first := r.count[req.Sink] == 1
			r.mu.Unlock()
			reply := busv1.ConnectionTestReply{RequestID: req.RequestID, OK: true, LatencyMs: 7}
			if strings.HasPrefix(req.Sink.Name, "pending-") && first {
				reply = busv1.ConnectionTestReply{RequestID: req.RequestID,
					Outcome: busv1.Outcome{Reason: "SinkConfigPending", Message: "sink config not seen yet"}}
			}
			if strings.HasPrefix(req.Sink.Name, "bad-") {
				reply = busv1.ConnectionTestReply{RequestID: req.RequestID, LatencyMs: 9, Permanent: true,
					Outcome: busv1.Outcome{Reason: "ConnectionTestFailed", Message: "connect: connection refused"}}
			}
			if strings.HasPrefix(req.Sink.Name, "denied-") {
				reply = busv1.ConnectionTestReply{RequestID: req.RequestID, Permanent: true,
					Outcome: busv1.Outcome{Reason: "CredentialsDenied", Message: "ambient credentials are not allowed for namespace x"}}
			}
			data, _ := json.Marshal(reply)
			_ = m.Respond(data)
		})
		if err != nil {
			return nil, err
		}
	}
	return r, nil
}

func (r *responder) probes(s busv1.SinkRef) int {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.count[s]
}

// eventually polls check until it returns nil or the deadline passes.
func eventually(t *testing.T, what string, check func() error) {
	t.Helper()
	testenv.Eventually(t, 30*time.Second, what, check)
}

// get reads obj fresh from the API server.
func get(t *testing.T, obj client.Object) error {
	t.Helper()
	return shared.kube.Client.Get(t.Context(), client.ObjectKeyFromObject(obj), obj)
}

// waitListening returns once host:port accepts connections, or control
// stopped (done), or a minute passed.
func waitListening(ctx context.Context, host string, port int, done <-chan error) error {
	addr := net.JoinHostPort(host, strconv.Itoa(port))
	var stopped error
	err := testenv.Poll(ctx, time.Minute, func() error {
		select {
		case err := <-done:
			stopped = fmt.Errorf("control stopped before %s listened: %w", addr, err)
			return nil
		default:
		}
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			return err
		}
		return c.Close()
	}, testenv.Every(50*time.Millisecond))
	switch {
	case stopped != nil:
		return stopped
	case err != nil && ctx.Err() != nil:
		return ctx.Err()
	case err != nil:
		return fmt.Errorf("%s does not listen after a minute: %w", addr, err)
	}
	return nil
}
