package demo

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"

	"kollect.dev/kollect/pkg/testenv"
)

// peers are the servers the demo runs in its own process or as children.
type peers struct {
	dir        string // everything the demo writes lives here
	kube       *testenv.Kube
	kubeconfig string
	nats       *testenv.NATS
	pg         *testenv.Postgres
	dsn        string
	git        *testenv.Git
	repo       string // bare repository folder
	repoURL    string
}

// startPeers starts the API server, NATS, PostgreSQL and the Git server.
func startPeers(step func(string)) (p *peers, err error) {
	dir, err := os.MkdirTemp("", "kollect-demo-")
	if err != nil {
		return nil, err
	}
	p = &peers{dir: dir}
	defer func() {
		if err != nil {
			p.stop()
		}
	}()
	step("starting kube-apiserver and etcd")
	if p.kube, err = testenv.NewKube(); err != nil {
		return p, err
	}
	p.kubeconfig = filepath.Join(dir, "kubeconfig")
	if err = os.WriteFile(p.kubeconfig, p.kube.Env.KubeConfig, 0o600); err != nil {
		return p, err
	}
	step("starting NATS JetStream")
	if p.nats, err = testenv.NewNATS(filepath.Join(dir, "nats"), -1); err != nil {
		return p, err
	}
	step("starting PostgreSQL (initdb of a throwaway cluster)")
	// PostgreSQL runs as user postgres, which cannot enter dir: it makes
	// and removes its own folder.
	if p.pg, err = testenv.NewPostgres(""); err != nil {
		return p, err
	}
	p.dsn = p.pg.DSN
	step("starting a Git server (git http-backend)")
	if p.git, err = testenv.NewGit(filepath.Join(dir, "git"), testenv.GitOptions{}); err != nil {
		return p, err
	}
	p.repo = filepath.Join(p.git.Root, "inventory.git")
	for _, args := range [][]string{
		{"init", "--quiet", "--bare", "--initial-branch=main", p.repo},
		{"-C", p.repo, "config", "http.receivepack", "true"},
	} {
		if out, err := exec.Command("git", args...).CombinedOutput(); err != nil {
			return p, fmt.Errorf("git %v: %w\n%s", args, err, out)
		}
	}
	p.repoURL = p.git.URL + "/inventory.git"
	return p, nil
}

// stop stops every peer and removes the demo's folder.
func (p *peers) stop() {
	var errs []error
	if p.git != nil {
		errs = append(errs, p.git.Stop())
	}
	if p.pg != nil {
		errs = append(errs, p.pg.Stop())
	}
	if p.nats != nil {
		p.nats.Stop()
	}
	if p.kube != nil {
		errs = append(errs, p.kube.Stop())
	}
	errs = append(errs, os.RemoveAll(p.dir))
	if err := errors.Join(errs...); err != nil {
		fmt.Fprintln(os.Stderr, "demo: stopping:", err)
	}
}
