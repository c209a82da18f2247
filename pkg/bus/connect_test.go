package bus

import (
	"net"
	"slices"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// waitFor waits for a signal on ch, failing the test after a deadline.
func waitFor(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("timed out waiting for %s", what)
	}
}

// notify returns a connection handler that signals ch without blocking.
func notify(ch chan struct{}) func(*nats.Conn) {
	return func(*nats.Conn) {
		select {
		case ch <- struct{}{}:
		default:
		}
	}
}

func TestConnectNamesTheService(t *testing.T) {
	n := testenv.StartNATS(t)
	nc, _, err := Connect(n.URL, busv1.ServiceAggregator)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	if err := nc.Flush(); err != nil {
		t.Fatal(err)
	}
	connz, err := n.Server.Connz(&server.ConnzOptions{})
	if err != nil {
		t.Fatal(err)
	}
	names := []string{}
	for _, c := range connz.Conns {
		names = append(names, c.Name)
	}
	if !slices.Contains(names, "kollect-aggregator") {
		t.Errorf("server connections %q do not include kollect-aggregator", names)
	}
}

func TestConnectWaitsForNATSToStart(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()

	connected := make(chan struct{}, 1)
	nc, js, err := Connect("nats://127.0.0.1:"+itoa(port), busv1.ServiceCollector, nats.ConnectHandler(notify(connected)))
	if err != nil {
		t.Fatalf("Connect with NATS down returned an error instead of retrying: %v", err)
	}
	defer nc.Close()

	n, err := testenv.NewNATS(t.TempDir(), port)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(n.Stop)
	waitFor(t, connected, "the first connect after NATS started")
	if err := Provision(testContext(t), js, DefaultOptions()); err != nil {
		t.Errorf("Provision over the late connection: %v", err)
	}
}

func TestConnectSurvivesANATSRestart(t *testing.T) {
	n := testenv.StartNATS(t)
	reconnected := make(chan struct{}, 1)
	nc, js, err := Connect(n.URL, busv1.ServiceControl, nats.ReconnectHandler(notify(reconnected)))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	ctx := testContext(t)
	if err := Provision(ctx, js, DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	kv, err := js.KeyValue(ctx, BucketConfig)
	if err != nil {
		t.Fatal(err)
	}
	key := ConfigKey(ConfigRef{Kind: busv1.KindTarget, Namespace: "team-a", Name: "pods"})
	if _, err := kv.Put(ctx, key, []byte(`{"generation":1}`)); err != nil {
		t.Fatal(err)
	}

	n.Restart(t)
	waitFor(t, reconnected, "the reconnect after the NATS restart")

	e, err := kv.Get(ctx, key)
	if err != nil || string(e.Value()) != `{"generation":1}` {
		t.Fatalf("Get %s after restart = %v, %v", key, e, err)
	}
	if _, err := kv.Put(ctx, key, []byte(`{"generation":2}`)); err != nil {
		t.Errorf("Put after restart: %v", err)
	}
}

func itoa(i int) string { return strconv.Itoa(i) }
