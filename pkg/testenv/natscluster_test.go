package testenv_test

import (
	"context"
	"fmt"
	"path/filepath"
	"strconv"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/testenv"
)

// A three-node cluster keeps an R3 stream writable when one node is killed,
// and the node catches up when it starts again on its store.
func TestANATSClusterKeepsAReplicatedStreamThroughANodeKill(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	bin, err := testenv.BuildNATSServer(ctx, root, t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	c, err := testenv.NewNATSCluster(bin, t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = c.Stop() })
	if len(c.Pids()) != 3 {
		t.Fatalf("running nodes: %v", c.Pids())
	}
	nc, err := nats.Connect(c.URL, nats.MaxReconnects(-1), nats.ReconnectWait(50*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	js, err := jetstream.New(nc)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "r3", Subjects: []string{"r3.>"}, Replicas: 3}); err != nil {
		t.Fatalf("an R3 stream on three nodes: %v", err)
	}
	publish := func(from, to int) {
		for i := from; i < to; i++ {
			testenv.Eventually(t, 30*time.Second, "publish "+strconv.Itoa(i), func() error {
				pctx, pcancel := context.WithTimeout(ctx, 2*time.Second)
				defer pcancel()
				_, err := js.Publish(pctx, "r3."+strconv.Itoa(i), []byte("x"))
				return err
			})
		}
	}
	publish(0, 10)
	in, err := c.ClientInBytes(func(name string) bool { return name == "counted" })
	if err != nil || in != 0 {
		t.Fatalf("bytes from a client that never connected: %d, %v", in, err)
	}
	counted, err := nats.Connect(c.URL, nats.Name("counted"))
	if err != nil {
		t.Fatal(err)
	}
	if err := counted.Publish("counted", make([]byte, 1000)); err != nil {
		t.Fatal(err)
	}
	if err := counted.Flush(); err != nil {
		t.Fatal(err)
	}
	counted.Close()
	testenv.Eventually(t, 10*time.Second, "the published kilobyte in connz", func() error {
		in, err := c.ClientInBytes(func(name string) bool { return name == "counted" })
		if err == nil && (in < 1000 || in > 1100) {
			err = fmt.Errorf("%d bytes", in)
		}
		return err
	})
	killed := c.Nodes[1]
	if err := killed.Kill(); err != nil {
		t.Fatal(err)
	}
	publish(10, 20) // two of three nodes are a quorum
	if err := killed.Start(); err != nil {
		t.Fatal(err)
	}
	testenv.Eventually(t, time.Minute, "the restarted node's replica to be current with 20 messages", func() error {
		s, err := js.Stream(ctx, "r3")
		if err != nil {
			return err
		}
		info, err := s.Info(ctx)
		if err != nil {
			return err
		}
		if info.State.Msgs != 20 {
			return fmt.Errorf("the stream holds %d messages", info.State.Msgs)
		}
		for _, r := range info.Cluster.Replicas {
			if r.Name == killed.Name && (!r.Current || r.Offline) {
				return fmt.Errorf("%s: current %v, offline %v", r.Name, r.Current, r.Offline)
			}
		}
		if len(info.Cluster.Replicas) != 2 {
			return fmt.Errorf("replicas besides the leader: %d", len(info.Cluster.Replicas))
		}
		return nil
	})
	if filepath.Base(filepath.Dir(killed.StoreDir)) != "nats-1" {
		t.Errorf("node 1 stores in %s", killed.StoreDir)
	}
}
