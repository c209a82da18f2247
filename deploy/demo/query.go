package demo

import (
	"bytes"
	"context"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"

	"k8s.io/client-go/kubernetes"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/childproc"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli"
)

// Query is the binary of the history API; the demo starts it after the
// pipeline (Services) and registers it with the API server as a cluster's
// APIService does, so that `kollect history` works with the demo's
// kubeconfig.
const Query = "query"

// queryService is the Service name the API server routes the APIService to
// (an ExternalName Service naming localhost); its serving certificate
// names it.
const queryService = "kollect-query"

// queryHost is the host name kube-apiserver verifies the query service's
// certificate against.
const queryHost = queryService + ".default.svc"

// StartQuery starts the query service from binDir, registers
// query.kollect.dev with the API server and waits until the API server
// serves it. The service's unexpected exit arrives on the returned channel.
func StartQuery(ctx context.Context, binDir, logDir string, p *Peers, timeout time.Duration) (*Service, <-chan error, error) {
	port, err := testenv.FreePort()
	if err != nil {
		return nil, nil, err
	}
	args := []string{"--kubeconfig", p.Kubeconfig, "--nats-url", p.NATS.URL, "--metrics-bind-address=0",
		"--bind-address=127.0.0.1", "--secure-port=" + strconv.Itoa(port),
		"--tls-cert-file", p.Aggregation.TLS.ServerCert, "--tls-private-key-file", p.Aggregation.TLS.ServerKey}
	proc, err := childproc.Start(Query, filepath.Join(logDir, Query+".log"), syscall.SIGTERM,
		exec.Command(filepath.Join(binDir, Query), args...))
	if err != nil {
		return nil, nil, err
	}
	s := &Service{Name: Query, Cmd: proc.Cmd, proc: proc}
	exits := make(chan error, 1)
	go func() {
		<-proc.Done()
		exits <- fmt.Errorf("%s exited: %v; %s", Query, proc.Err(), proc.Tail(20))
	}()
	if err := testenv.RegisterAPIService(ctx, p.Kube, p.Aggregation, queryv1.Group, queryv1.GroupVersion.Version, queryService, port); err != nil {
		return s, exits, err
	}
	cs, err := kubernetes.NewForConfig(p.Kube.Config)
	if err != nil {
		return s, exits, err
	}
	deadline := time.Now().Add(timeout)
	for {
		_, err := cs.Discovery().ServerResourcesForGroupVersion(queryv1.GroupVersion.String())
		if err == nil {
			return s, exits, nil
		}
		select {
		case err := <-exits:
			return s, exits, err
		case <-ctx.Done():
			return s, exits, ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return s, exits, fmt.Errorf("the API server does not serve %s after %s: %w; %s", queryv1.GroupVersion, timeout, err, proc.Tail(20))
		}
	}
}

// showHistory runs `kollect history` against the demo's API server, as a
// user would, and prints what it prints.
func (w *watcher) showHistory(ctx context.Context, inventory string, wantRevisions int) error {
	args := []string{"history", inventory, "--kubeconfig", w.p.Kubeconfig}
	var out, errOut bytes.Buffer
	deadline := time.Now().Add(w.timeout)
	for {
		out.Reset()
		errOut.Reset()
		code := cli.Main(ctx, args, cli.Streams{Out: &out, Err: &errOut})
		if code == 0 && bytes.Count(out.Bytes(), []byte("\n")) > wantRevisions { // the header and a line per revision
			break
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("kollect %v: exit %d, want %d revisions:\n%s%s", args, code, wantRevisions, out.String(), errOut.String())
		}
		select {
		case err := <-w.exits:
			return err
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(500 * time.Millisecond):
		}
	}
	fmt.Fprintf(w.out, "$ kollect history %s --kubeconfig %s\n%s", inventory, w.p.Kubeconfig, out.String())
	return nil
}
