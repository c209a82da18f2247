package demo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"kollect.dev/kollect/pkg/testenv"
)

// Peers are the servers the demo (and the load test) runs in its own process
// or as children.
type Peers struct {
	// Dir holds everything the demo writes.
	Dir string
	// Kube is the API server and etcd; Kubeconfig a file pointing at it.
	Kube       *testenv.Kube
	Kubeconfig string
	// Aggregation are the TLS files of the API server's aggregation layer
	// (the query service's serving certificate among them).
	Aggregation testenv.Aggregation
	// NATS is the embedded bus server (it runs in this process).
	NATS *testenv.NATS
	// PG is the PostgreSQL server and DSN its superuser connection string.
	PG  *testenv.Postgres
	DSN string
	// Git serves Repo, a bare repository folder, at RepoURL.
	Git     *testenv.Git
	Repo    string
	RepoURL string
}

// StartPeers starts the API server, NATS, PostgreSQL and the Git server.
func StartPeers(step func(string)) (p *Peers, err error) {
	dir, err := os.MkdirTemp("", "kollect-demo-")
	if err != nil {
		return nil, err
	}
	p = &Peers{Dir: dir}
	defer func() {
		if err != nil {
			p.Stop()
		}
	}()
	step("starting kube-apiserver (with the aggregation layer) and etcd")
	tlsDir := filepath.Join(dir, "aggregation")
	if err = os.Mkdir(tlsDir, 0o700); err != nil {
		return p, err
	}
	if p.Kube, p.Aggregation, err = testenv.NewAggregatingKube(tlsDir, queryHost); err != nil {
		return p, err
	}
	p.Kubeconfig = filepath.Join(dir, "kubeconfig")
	if err = os.WriteFile(p.Kubeconfig, p.Kube.Env.KubeConfig, 0o600); err != nil {
		return p, err
	}
	step("starting NATS JetStream")
	if p.NATS, err = testenv.NewNATS(filepath.Join(dir, "nats"), -1); err != nil {
		return p, err
	}
	step("starting PostgreSQL (initdb of a throwaway cluster)")
	// PostgreSQL runs as user postgres, which cannot enter dir: it makes
	// and removes its own folder.
	if p.PG, err = testenv.NewPostgres(""); err != nil {
		return p, err
	}
	p.DSN = p.PG.DSN
	step("starting a Git server (git http-backend)")
	if p.Git, err = testenv.NewGit(filepath.Join(dir, "git"), testenv.GitOptions{}); err != nil {
		return p, err
	}
	p.Repo = filepath.Join(p.Git.Root, "inventory.git")
	for _, args := range [][]string{
		{"init", "--quiet", "--bare", "--initial-branch=main", p.Repo},
		{"-C", p.Repo, "config", "http.receivepack", "true"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			return p, fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	p.RepoURL = p.Git.URL + "/inventory.git"
	return p, nil
}

// Stop stops every peer and removes the demo's folder.
func (p *Peers) Stop() {
	var errs []error
	if p.Git != nil {
		errs = append(errs, p.Git.Stop())
	}
	if p.PG != nil {
		errs = append(errs, p.PG.Stop())
	}
	if p.NATS != nil {
		p.NATS.Stop()
	}
	if p.Kube != nil {
		errs = append(errs, p.Kube.Stop())
	}
	errs = append(errs, os.RemoveAll(p.Dir))
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "demo: stopping:", err)
	}
}
