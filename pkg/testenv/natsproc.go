package testenv

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"

	"github.com/nats-io/nats.go"
)

// NATSProcess is nats-server with JetStream run as its own process, so that
// the fault suite can kill it (SIGKILL, with or without its store) as a
// node crash would; NATS (embedded) cannot be killed without killing its
// host process.
type NATSProcess struct {
	// Bin is the nats-server binary (see BuildNATSServer).
	Bin string
	// StoreDir is the JetStream store; LogFile the server's log.
	StoreDir, LogFile string
	// Port is the client port; URL the client URL.
	Port int
	URL  string
	// Name, ClusterPort and Routes make the server a node of a JetStream
	// cluster (NewNATSCluster sets them); a zero ClusterPort runs it alone.
	Name        string
	ClusterPort int
	Routes      []string
	// MonitorPort, when set, serves nats-server's monitoring endpoints
	// (/varz, /connz, /jsz) on loopback.
	MonitorPort int
	proc        *process
}

// BuildNATSServer builds nats-server, at the version go.mod requires, into
// binDir and returns its path; the Go build cache makes later builds quick.
func BuildNATSServer(ctx context.Context, root, binDir string) (string, error) {
	bin := filepath.Join(binDir, "nats-server")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", bin, "github.com/nats-io/nats-server/v2")
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return "", fmt.Errorf("build nats-server: %w\n%s", err, out)
	}
	return bin, nil
}

// NewNATSProcess starts bin on a free loopback port storing in dir.
func NewNATSProcess(bin, dir string) (*NATSProcess, error) {
	port, err := FreePort()
	if err != nil {
		return nil, err
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	n := &NATSProcess{Bin: bin, StoreDir: filepath.Join(dir, "jetstream"), LogFile: filepath.Join(dir, "nats-server.log"),
		Port: port, URL: "nats://127.0.0.1:" + strconv.Itoa(port)}
	return n, n.Start()
}

// Start starts the server on Port with StoreDir as it is (kept, emptied or
// missing) and waits until it accepts connections.
func (n *NATSProcess) Start() error {
	if n.proc != nil {
		return fmt.Errorf("nats-server is already running")
	}
	conf := filepath.Join(filepath.Dir(n.StoreDir), "nats-server.conf")
	if err := os.MkdirAll(filepath.Dir(conf), 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(conf, n.config(), 0o600); err != nil {
		return err
	}
	cmd := exec.Command(n.Bin, "-c", conf, "-a", "127.0.0.1", "-p", strconv.Itoa(n.Port), "-js", "-sd", n.StoreDir)
	p, err := startProcess("nats-server", n.LogFile, syscall.SIGTERM, cmd)
	if err != nil {
		return err
	}
	if err := waitReady(p, natsReady(n.URL)); err != nil {
		return err
	}
	n.proc = p
	return nil
}

// config is the server's configuration file: the store limit and, for a
// cluster node, its name and routes on loopback.
func (n *NATSProcess) config() []byte {
	b := fmt.Appendf(nil, "jetstream { max_file_store: %d }\n", MaxStore)
	if n.MonitorPort != 0 {
		b = fmt.Appendf(b, "http: \"127.0.0.1:%d\"\n", n.MonitorPort)
	}
	if n.ClusterPort == 0 {
		return b
	}
	b = fmt.Appendf(b, "server_name: %q\ncluster {\n  name: kollect\n  listen: \"127.0.0.1:%d\"\n  routes: [\n", n.Name, n.ClusterPort)
	for _, r := range n.Routes {
		b = fmt.Appendf(b, "    %q\n", r)
	}
	return append(b, "  ]\n}\n"...)
}

// Kill kills the server with SIGKILL (no shutdown, no flush) and waits for
// it; the store stays on disk as the crash left it.
func (n *NATSProcess) Kill() error {
	if n.proc == nil {
		return nil
	}
	err := n.proc.Kill()
	n.proc = nil
	return err
}

// Stop shuts the server down gracefully.
func (n *NATSProcess) Stop() error {
	if n.proc == nil {
		return nil
	}
	err := n.proc.Stop()
	n.proc = nil
	return err
}

// Pid is the server's process id; 0 when it is not running.
func (n *NATSProcess) Pid() int {
	if n.proc == nil {
		return 0
	}
	return n.proc.Cmd.Process.Pid
}

func natsReady(url string) func() error {
	return func() error {
		nc, err := nats.Connect(url, nats.NoReconnect())
		if err != nil {
			return err
		}
		nc.Close()
		return nil
	}
}
