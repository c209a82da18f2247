package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"
)

// Services are the service binaries the demo starts, in start order.
var Services = []string{"control", "collector", "aggregator", "snapshotexporter", "databaseexporter", "eventexporter"}

// service is one running service process.
type service struct {
	name string
	cmd  *exec.Cmd
	done chan error
}

// args returns the flags a deployment gives the service, pointed at the
// demo's API server and bus, with leader election, metrics and the webhook
// off (one replica each, nothing listens but the services' own work).
func args(name string, p *peers) []string {
	kube := []string{"--kubeconfig", p.kubeconfig}
	bus := []string{"--nats-url", p.nats.URL}
	switch name {
	case "control":
		return append(append(kube, bus...), "--leader-elect=false", "--metrics-bind-address=0",
			"--health-probe-bind-address=0", "--webhook-port=0", "--allow-in-cluster-sinks")
	case "collector":
		return append(append(kube, bus...), "--leader-elect=false", "--metrics-bind-address=0")
	case "aggregator":
		return bus
	default:
		return append(append(kube, bus...), "--metrics-bind-address=0", "--allow-in-cluster-sinks",
			"--retry-initial=200ms", "--retry-max=5s")
	}
}

// startServices starts every service from binDir, logging to logDir; their
// unexpected exits arrive on the returned channel.
func startServices(binDir, logDir string, p *peers) ([]*service, <-chan error, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, nil, err
	}
	exits := make(chan error, len(Services))
	var started []*service
	for _, name := range Services {
		log, err := os.Create(filepath.Join(logDir, name+".log"))
		if err != nil {
			return started, exits, err
		}
		cmd := exec.Command(filepath.Join(binDir, name), args(name, p)...)
		cmd.Stdout, cmd.Stderr = log, log
		cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
		if err := cmd.Start(); err != nil {
			_ = log.Close()
			return started, exits, fmt.Errorf("start %s: %w", name, err)
		}
		s := &service{name: name, cmd: cmd, done: make(chan error, 1)}
		go func() {
			err := cmd.Wait()
			_ = log.Close()
			s.done <- err
			exits <- fmt.Errorf("%s exited: %v; last lines of its log:\n%s", name, err, tail(log.Name(), 20))
		}()
		started = append(started, s)
	}
	return started, exits, nil
}

// stopServices sends SIGTERM to every service and SIGKILL to those still
// running after the grace period, and waits for all of them.
func stopServices(ss []*service, grace time.Duration) error {
	for _, s := range ss {
		_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGTERM)
	}
	var errs []error
	deadline := time.After(grace)
	for _, s := range ss {
		select {
		case <-s.done:
		case <-deadline:
			_ = syscall.Kill(-s.cmd.Process.Pid, syscall.SIGKILL)
			<-s.done
			errs = append(errs, fmt.Errorf("%s did not stop within %v", s.name, grace))
		}
	}
	return errors.Join(errs...)
}

// build compiles the service binaries into binDir, reporting progress; the
// Go build cache makes a second run take seconds.
func build(ctx context.Context, root, binDir string, step func(string)) error {
	for _, name := range Services {
		step("building " + name)
		cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(binDir, name), "./services/"+name+"/cmd")
		cmd.Dir = root
		if out, err := cmd.CombinedOutput(); err != nil {
			return fmt.Errorf("build %s: %w\n%s", name, err, out)
		}
	}
	return nil
}

// tail returns the last n lines of a file.
func tail(path string, n int) string {
	b, err := os.ReadFile(path)
	if err != nil {
		return err.Error()
	}
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	return strings.Join(lines[max(0, len(lines)-n):], "\n")
}
