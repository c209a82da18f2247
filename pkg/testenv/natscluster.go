package testenv

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net"
	"net/http"
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
	ports, err := freePorts(3 * n) // client, route and monitoring port of each node
	if err != nil {
		return nil, err
	}
	routes := make([]string, n)
	for i := range n {
		port, route, monitor := ports[3*i], ports[3*i+1], ports[3*i+2]
		d := filepath.Join(dir, "nats-"+strconv.Itoa(i))
		c.Nodes = append(c.Nodes, &NATSProcess{Bin: bin, StoreDir: filepath.Join(d, "jetstream"),
			LogFile: filepath.Join(d, "nats-server.log"), Port: port, URL: "nats://127.0.0.1:" + strconv.Itoa(port),
			Name: "nats-" + strconv.Itoa(i), ClusterPort: route, MonitorPort: monitor})
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

// freePorts returns n distinct loopback ports that were free a moment ago:
// they are held together, so that no two are the same.
func freePorts(n int) ([]int, error) {
	out := make([]int, 0, n)
	for range n {
		l, err := net.Listen("tcp", "127.0.0.1:0")
		if err != nil {
			return nil, fmt.Errorf("find a free port: %w", err)
		}
		defer l.Close()
		out = append(out, l.Addr().(*net.TCPAddr).Port)
	}
	return out, nil
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

// ClientInBytes sums, over every node, the bytes received from the client
// connections whose name accept takes, closed connections included (as
// long as the server remembers them): what those clients published to the
// bus, each byte counted once whichever node it reached.
func (c *NATSCluster) ClientInBytes(accept func(name string) bool) (int64, error) {
	var sum int64
	for _, n := range c.Nodes {
		if n.Pid() == 0 || n.MonitorPort == 0 {
			continue
		}
		var body struct {
			Conns []struct {
				Name    string `json:"name"`
				InBytes int64  `json:"in_bytes"`
			} `json:"connections"`
		}
		if err := getJSON(fmt.Sprintf("http://127.0.0.1:%d/connz?state=all&limit=100000", n.MonitorPort), &body); err != nil {
			return 0, fmt.Errorf("connz of %s: %w", n.Name, err)
		}
		for _, conn := range body.Conns {
			if accept(conn.Name) {
				sum += conn.InBytes
			}
		}
	}
	return sum, nil
}

func getJSON(url string, v any) error {
	client := &http.Client{Timeout: 5 * time.Second}
	resp, err := client.Get(url)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return json.NewDecoder(resp.Body).Decode(v)
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
