package demo

import (
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"time"

	"kollect.dev/kollect/pkg/childproc"
)

// Services are the service binaries the demo starts, in start order.
var Services = []string{"control", "collector", "aggregator", "snapshotexporter", "databaseexporter", "eventexporter"}

// Service is one running service process.
type Service struct {
	// Name is the service's binary name (one of Services).
	Name string
	// Cmd is the running process.
	Cmd  *exec.Cmd
	proc *childproc.Process
}

// ServiceOptions adjust how StartServices runs the services.
type ServiceOptions struct {
	// MemoryLimits are the services' --memory-limit by name (see
	// ChartMemoryLimits); a service without one gets no Go soft limit.
	MemoryLimits map[string]string
	// Extra are flags appended per service name after the demo's own; a
	// flag given twice takes the later value.
	Extra map[string][]string
}

// args returns the flags a deployment gives the service, pointed at the
// demo's API server and bus, with leader election, metrics and the webhook
// off (one replica each, nothing listens but the services' own work). With
// no webhook to record who set a sink's Secret, control does not verify
// requesters (as kollect dev): the demo's API server has one user, its admin.
func args(name string, p *Peers) []string {
	kube := []string{"--kubeconfig", p.Kubeconfig}
	bus := []string{"--nats-url", p.NATS.URL}
	switch name {
	case "control":
		return append(append(kube, bus...), "--leader-elect=false", "--metrics-bind-address=0",
			"--health-probe-bind-address=0", "--webhook-port=0", "--verify-requesters=false", "--allow-in-cluster-sinks")
	case "collector":
		return append(append(kube, bus...), "--leader-elect=false", "--metrics-bind-address=0")
	case "aggregator":
		return append(bus, "--metrics-bind-address=0")
	default:
		return append(append(kube, bus...), "--metrics-bind-address=0", "--allow-in-cluster-sinks",
			"--retry-initial=200ms", "--retry-max=5s")
	}
}

// Args returns the flags StartServices gives the service name, for harnesses
// (the fault suite) that start and restart services one by one.
func Args(name string, p *Peers) []string { return args(name, p) }

// StartServices starts every service from binDir, logging to logDir; their
// unexpected exits arrive on the returned channel.
func StartServices(binDir, logDir string, p *Peers) ([]*Service, <-chan error, error) {
	return StartServicesWith(binDir, logDir, p, ServiceOptions{})
}

// StartServicesWith is StartServices with options.
func StartServicesWith(binDir, logDir string, p *Peers, o ServiceOptions) ([]*Service, <-chan error, error) {
	if err := os.MkdirAll(logDir, 0o755); err != nil {
		return nil, nil, err
	}
	exits := make(chan error, len(Services))
	var started []*Service
	for _, name := range Services {
		logPath := filepath.Join(logDir, name+".log")
		if err := os.Remove(logPath); err != nil && !errors.Is(err, os.ErrNotExist) {
			return started, exits, err
		}
		a := args(name, p)
		if l := o.MemoryLimits[name]; l != "" {
			a = append(a, "--memory-limit="+l)
		}
		proc, err := childproc.Start(name, logPath, syscall.SIGTERM, exec.Command(filepath.Join(binDir, name), append(a, o.Extra[name]...)...))
		if err != nil {
			return started, exits, err
		}
		go func() {
			<-proc.Done()
			exits <- fmt.Errorf("%s exited: %v; %s", name, proc.Err(), proc.Tail(20))
		}()
		started = append(started, &Service{Name: name, Cmd: proc.Cmd, proc: proc})
	}
	return started, exits, nil
}

// StopServices sends SIGTERM to every service and SIGKILL to the groups of
// those still running after the grace period, and waits for all of them. A
// service that had exited already was reported on the exits channel.
func StopServices(ss []*Service, grace time.Duration) error {
	errs := make([]error, len(ss))
	var wg sync.WaitGroup
	for i, s := range ss {
		s.proc.Grace = grace
		wg.Go(func() {
			err := s.proc.Stop()
			switch {
			case errors.Is(err, childproc.ErrExited):
			case err != nil:
				errs[i] = err
			case s.proc.Forced():
				errs[i] = fmt.Errorf("%s did not stop within %v", s.Name, grace)
			}
		})
	}
	wg.Wait()
	return errors.Join(errs...)
}

// Build compiles the service binaries into binDir, reporting progress; the
// Go build cache makes a second run take seconds.
func Build(ctx context.Context, root, binDir string, step func(string)) error {
	for _, name := range Services {
		if err := buildBinary(ctx, root, binDir, name, step); err != nil {
			return err
		}
	}
	return nil
}

// buildBinary compiles cmd/kollect-<name> into binDir/<name>.
func buildBinary(ctx context.Context, root, binDir, name string, step func(string)) error {
	step("building " + name)
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(binDir, name), "./cmd/kollect-"+name)
	cmd.Dir = root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build %s: %w\n%s", name, err, out)
	}
	return nil
}
