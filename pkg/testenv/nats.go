package testenv

import (
	"fmt"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATS is an embedded NATS server with JetStream enabled, storing in a
// temporary folder, and a connection to it.
type NATS struct {
	URL    string
	Conn   *nats.Conn
	JS     jetstream.JetStream
	Server *server.Server
	// StoreDir is the JetStream folder; RestartNATS reuses it.
	StoreDir string
}

// StartNATS starts an embedded JetStream server on a free loopback port.
func StartNATS(t testing.TB) *NATS {
	t.Helper()
	n, err := NewNATS(t.TempDir(), -1)
	if err != nil {
		t.Fatalf("start NATS: %v", err)
	}
	t.Cleanup(n.Stop)
	return n
}

// NewNATS starts an embedded JetStream server storing in dir, on port (-1 for
// a random free port). Callers own Stop. The demo and `kollect dev` use it.
func NewNATS(dir string, port int) (*NATS, error) {
	s, err := newServer(dir, port)
	if err != nil {
		return nil, err
	}
	n := &NATS{URL: s.ClientURL(), Server: s, StoreDir: dir}
	if n.Conn, err = nats.Connect(n.URL, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond)); err != nil {
		s.Shutdown()
		return nil, err
	}
	if n.JS, err = jetstream.New(n.Conn); err != nil {
		n.Stop()
		return nil, err
	}
	return n, nil
}

// Restart shuts the server down and starts it again on the same port and
// store, as a NATS restart in production would; Conn reconnects by itself.
func (n *NATS) Restart(t testing.TB) {
	t.Helper()
	port := n.Server.Addr().(*net.TCPAddr).Port
	n.Server.Shutdown()
	n.Server.WaitForShutdown()
	s, err := newServer(n.StoreDir, port)
	if err != nil {
		t.Fatalf("restart NATS: %v", err)
	}
	n.Server = s
}

// Stop closes the connection and shuts the server down.
func (n *NATS) Stop() {
	if n.Conn != nil {
		n.Conn.Close()
	}
	n.Server.Shutdown()
	n.Server.WaitForShutdown()
}

// MaxStore is the JetStream file store limit of every server testenv starts.
// Left unset, nats-server takes 75% of the disk's free space, and the bus's
// envelope object store reserves 4 GiB: on a runner with less than about
// 5.4 GiB free every provisioning fails with "insufficient storage resources
// available" although the tests write a few megabytes. A fixed limit makes
// the tests independent of the runner's free disk.
const MaxStore = 1 << 40

func newServer(dir string, port int) (*server.Server, error) {
	s, err := server.NewServer(&server.Options{
		Host:              "127.0.0.1",
		Port:              port,
		JetStream:         true,
		JetStreamMaxStore: MaxStore,
		StoreDir:          dir,
		NoSigs:            true,
		NoLog:             true,
	})
	if err != nil {
		return nil, err
	}
	s.Start()
	if !s.ReadyForConnections(10 * time.Second) {
		s.Shutdown()
		return nil, fmt.Errorf("nats-server on port %d not ready within 10s", port)
	}
	return s, nil
}
