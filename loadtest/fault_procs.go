package loadtest

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/pkg/failpoint"
)

// faultInstances are the service processes of a fault run: every service
// once, the collector and the aggregator twice (replicas: a standby takes
// over from a killed or paused leader, or shares the work once the
// services shard it).
var faultInstances = []string{"control", "collector", "collector-b", "aggregator-a", "aggregator-b",
	"snapshotexporter", "databaseexporter", "eventexporter"}

// binaryOf is the service binary of an instance ("aggregator-a" → aggregator).
func binaryOf(inst string) string {
	name, _, _ := strings.Cut(inst, "-")
	return name
}

// proc is one running service process.
type proc struct {
	cmd      *exec.Cmd
	done     chan struct{}
	status   syscall.WaitStatus
	expected bool // killed or armed by the suite: its exit is no defect
}

// supervisor starts, kills and restarts the service processes of a fault
// run. A process that exits when the suite did not kill or arm it is a
// defect: it is recorded and started again.
type supervisor struct {
	binDir, logDir string
	peers          *demo.Peers
	extra          map[string][]string // flags by binary

	mu         sync.Mutex
	procs      map[string]*proc
	unexpected []string
	closed     bool
}

func newSupervisor(binDir, logDir string, p *demo.Peers) *supervisor {
	return &supervisor{binDir: binDir, logDir: logDir, peers: p, procs: map[string]*proc{}, extra: map[string][]string{
		// Short enough that a killed exporter's event comes back and its
		// claim lapses within seconds, not the production minutes.
		"control":          {"--bus-exporter-ack-wait=5s"},
		"aggregator":       {"--leader-election-lease-duration=3s"},
		"snapshotexporter": {"--claim-ttl=3s"},
		"databaseexporter": {"--claim-ttl=3s"},
		"eventexporter":    {"--claim-ttl=3s"},
	}}
}

// start starts inst; arm, when set, is its KOLLECT_FAILPOINT.
func (s *supervisor) start(inst, arm string) error {
	bin := binaryOf(inst)
	args := append(demo.Args(bin, s.peers), s.extra[bin]...)
	switch bin {
	case "aggregator":
		args = append(args, "--leader-election-identity="+inst)
	case "collector":
		// Every collector replica works on its share of the shards,
		// leased on the bus with the short lease of the aggregators.
		args = append(args, "--leader-elect=true", "--leader-election-identity="+inst, "--leader-election-lease-duration=3s")
	}
	log, err := os.OpenFile(filepath.Join(s.logDir, inst+".log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(s.binDir, bin), args...)
	cmd.Stdout, cmd.Stderr = log, log
	cmd.Env = os.Environ()
	if arm != "" {
		cmd.Env = append(cmd.Env, failpoint.Env+"="+arm)
	}
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		_ = log.Close()
		return fmt.Errorf("start %s: %w", inst, err)
	}
	p := &proc{cmd: cmd, done: make(chan struct{}), expected: arm != ""}
	s.mu.Lock()
	s.procs[inst] = p
	s.mu.Unlock()
	go func() {
		_ = cmd.Wait()
		_ = log.Close()
		p.status, _ = cmd.ProcessState.Sys().(syscall.WaitStatus)
		close(p.done)
		s.exited(inst, p)
	}()
	return nil
}

// exited restarts a process that died on its own.
func (s *supervisor) exited(inst string, p *proc) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if p.expected || s.closed || s.procs[inst] != p {
		return
	}
	s.unexpected = append(s.unexpected, fmt.Sprintf("%s exited by itself (%v); last lines:\n%s", inst, p.status,
		tailLines(filepath.Join(s.logDir, inst+".log"), 15)))
	go func() {
		time.Sleep(time.Second) // a crash loop must not spin
		_ = s.start(inst, "")
	}()
}

// kill kills inst with SIGKILL and waits for it.
func (s *supervisor) kill(inst string) {
	p := s.get(inst)
	if p == nil {
		return
	}
	s.mu.Lock()
	p.expected = true
	s.mu.Unlock()
	_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// stop stops inst gracefully (SIGTERM, SIGKILL after grace), as a scale
// down would, and waits for it.
func (s *supervisor) stop(inst string, grace time.Duration) {
	p := s.get(inst)
	if p == nil {
		return
	}
	s.mu.Lock()
	p.expected = true
	s.mu.Unlock()
	_ = syscall.Kill(p.cmd.Process.Pid, syscall.SIGTERM)
	select {
	case <-p.done:
	case <-time.After(grace):
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
		<-p.done
	}
	s.mu.Lock()
	if s.procs[inst] == p {
		delete(s.procs, inst)
	}
	s.mu.Unlock()
}

// signal sends sig to inst's process.
func (s *supervisor) signal(inst string, sig syscall.Signal) error {
	p := s.get(inst)
	if p == nil {
		return fmt.Errorf("%s is not running", inst)
	}
	return syscall.Kill(p.cmd.Process.Pid, sig)
}

func (s *supervisor) get(inst string) *proc {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.procs[inst]
}

// takeUnexpected returns and clears the unexpected exits seen so far.
func (s *supervisor) takeUnexpected() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.unexpected
	s.unexpected = nil
	return out
}

// stopAll stops every process (SIGTERM, then SIGKILL after grace).
func (s *supervisor) stopAll(grace time.Duration) error {
	s.mu.Lock()
	s.closed = true
	procs := make(map[string]*proc, len(s.procs))
	for k, p := range s.procs {
		p.expected = true
		procs[k] = p
	}
	s.mu.Unlock()
	for _, p := range procs {
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGCONT)
		_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGTERM)
	}
	var errs []error
	deadline := time.After(grace)
	for inst, p := range procs {
		select {
		case <-p.done:
		case <-deadline:
			_ = syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
			<-p.done
			errs = append(errs, fmt.Errorf("%s did not stop within %v", inst, grace))
		}
	}
	return errors.Join(errs...)
}

// tailLines returns the last n lines of a file.
func tailLines(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}

// killByCmdline sends SIGKILL to every process whose command line holds all
// of parts, and returns how many it killed.
func killByCmdline(parts ...string) int {
	entries, _ := os.ReadDir("/proc")
	n := 0
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == os.Getpid() {
			continue
		}
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err != nil {
			continue
		}
		cmd := strings.ReplaceAll(string(b), "\x00", " ")
		if !slices.ContainsFunc(parts, func(p string) bool { return !strings.Contains(cmd, p) }) {
			if syscall.Kill(pid, syscall.SIGKILL) == nil {
				n++
			}
		}
	}
	return n
}
