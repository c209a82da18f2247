package testenv

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// NATSCluster is a JetStream cluster of nats-server processes routed on
// loopback, as the chart runs NATS in production (three nodes, streams
// replicated on all three): the load and fault suites kill one node while
// the others keep the bus.
type NATSCluster struct {
	// Nodes are the servers; each can be killed and started again.
	Nodes []*NATSProcess
	// URL lists every node's client URL, comma-separated, as the services'
	// --nats-url takes it: a client fails over to the next node.
	URL string
}

// NewNATSCluster starts n nodes of bin storing under dir (dir/nats-<i>)
// and waits until the cluster has a JetStream meta leader.
func NewNATSCluster(bin, dir string, n int) (*NATSCluster, error) {
	if n < 1 {
		return nil, fmt.Errorf("a NATS cluster needs at least one node, not %d", n)
	}
	c := &NATSCluster{}
	routes := make([]string, n)
	for i := range n {
		port, err := FreePort()
		if err != nil {
			return nil, err
		}
		route, err := FreePort()
		if err != nil {
			return nil, err
		}
		d := filepath.Join(dir, "nats-"+strconv.Itoa(i))
		c.Nodes = append(c.Nodes, &NATSProcess{Bin: bin, StoreDir: filepath.Join(d, "jetstream"),
			LogFile: filepath.Join(d, "nats-server.log"), Port: port, URL: "nats://127.0.0.1:" + strconv.Itoa(port),
			Name: "nats-" + strconv.Itoa(i), ClusterPort: route})
		routes[i] = "nats-route://127.0.0.1:" + strconv.Itoa(route)
	}
	urls := make([]string, n)
	for i, node := range c.Nodes {
		node.Routes = routes
		urls[i] = node.URL
	}
	c.URL = strings.Join(urls, ",")
	for _, node := range c.Nodes {
		if err := node.Start(); err != nil {
			_ = c.Stop()
			return nil, fmt.Errorf("start %s: %w", node.Name, err)
		}
	}
	if err := c.WaitJetStream(readyTimeout); err != nil {
		_ = c.Stop()
		return nil, err
	}
	return c, nil
}

// WaitJetStream waits until every running node answers JetStream requests
// (the cluster has elected its meta leader), or timeout passes.
func (c *NATSCluster) WaitJetStream(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for _, node := range c.Nodes {
		if node.Pid() == 0 {
			continue
		}
		var err error
		for {
			if err = jetStreamReady(node.URL); err == nil {
				break
			}
			if time.Now().After(deadline) {
				return fmt.Errorf("JetStream of %s not ready within %v: %w", node.Name, timeout, err)
			}
			time.Sleep(10 * pollInterval)
		}
	}
	return nil
}

// jetStreamReady asks the server at url for the account's JetStream info,
// which needs the cluster's meta leader.
func jetStreamReady(url string) error {
	nc, err := nats.Connect(url, nats.NoReconnect())
	if err != nil {
		return err
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	_, err = js.AccountInfo(ctx)
	return err
}

// Pids are the running nodes' process ids by node name.
func (c *NATSCluster) Pids() map[string]int {
	out := map[string]int{}
	for _, n := range c.Nodes {
		if pid := n.Pid(); pid != 0 {
			out[n.Name] = pid
		}
	}
	return out
}

// Stop stops every node gracefully.
func (c *NATSCluster) Stop() error {
	var errs []error
	for _, n := range c.Nodes {
		errs = append(errs, n.Stop())
	}
	return errors.Join(errs...)
}
