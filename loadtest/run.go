package loadtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/loadtest/simsource"
	"kollect.dev/kollect/pkg/testenv"
)

// run is one load test in progress.
type run struct {
	c       Config
	out     io.Writer
	root    string
	p       *demo.Peers
	cs      kubernetes.Interface
	s       *sampler
	res     *Result
	objs    []Object
	exits   <-chan error
	metrics map[string]int // service -> metrics port
	pprof   map[string]int // service -> pprof port when profiling
	// bus is the NATS cluster; svc the peers as the services see them
	// (p with the cluster's URLs instead of the embedded server).
	bus *testenv.NATSCluster
	svc *demo.Peers
	// mut changes the objects; sim, simSrv and sourceKubeconfig are the
	// simulated source when c.Source is SourceSim.
	mut              mutator
	sim              *simsource.Source
	simSrv           *simsource.Server
	sourceKubeconfig string
	// gitStates are the namespaces' Git states the initial sync's poller
	// read, by branch head.
	gitStates map[string]gitState
	// gitCPULog is where the Git server logs its http-backends' CPU.
	gitCPULog string
}

func (r *run) step(format string, args ...any) {
	fmt.Fprintf(r.out, "[loadtest %s] %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// Run runs the load test c describes and writes its report to c.OutDir.
func Run(ctx context.Context, out io.Writer, c Config) (*Result, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	start := time.Now()
	r := &run{c: c, out: out, root: root, metrics: map[string]int{}, pprof: map[string]int{}, res: &Result{Tier: c.Tier,
		Date: start.UTC().Format(time.RFC3339), Machine: machine(), Versions: versions(root)}}
	r.res.Mode = "system"
	if c.CollectOnly {
		r.res.Mode = "collect"
	}
	if !c.CollectOnly {
		r.c.Kinds = sourceKinds(c.Source)
	}
	r.res.Settings = Settings{Objects: c.Objects, Namespaces: c.Namespaces, Workers: c.Workers, QPS: c.QPS, Changes: c.Changes,
		ChangeRate: c.ChangeRate, Deletes: c.Deletes, IdleSeconds: c.Idle.Seconds()}
	defaults, err := demo.ChartMemoryLimits(root)
	if err != nil {
		return nil, err
	}
	if r.res.Settings.MemoryLimits, err = demo.ParseMemoryLimits(c.MemoryLimit, defaults); err != nil {
		return nil, err
	}
	if err := r.build(ctx); err != nil {
		return nil, err
	}
	if r.p, err = demo.StartPeers(func(s string) { r.step("%s", s) }); err != nil {
		return nil, err
	}
	defer r.p.Stop()
	if err := r.measureGit(); err != nil {
		return nil, err
	}
	if err := r.startBus(); err != nil {
		return nil, err
	}
	defer func() { _ = r.bus.Stop() }()
	if r.s, err = newSampler(start, r.bus.URL); err != nil {
		return nil, err
	}
	r.s.busIn = r.busIn
	r.s.gitCPU = func() (float64, error) { return testenv.GitCPUSeconds(r.gitCPULog) }
	r.s.watchPeers()
	for name, pid := range r.bus.Pids() {
		r.s.watch(name, pid)
	}
	sctx, stopSampling := context.WithCancel(ctx)
	defer stopSampling()
	go r.s.run(sctx)
	if err := r.createAll(ctx); err != nil {
		return nil, err
	}
	if r.simSrv != nil {
		defer func() { _ = r.simSrv.Stop() }()
	}
	if !c.CollectOnly {
		if err := r.system(ctx); err != nil {
			r.res.Notes = append(r.res.Notes, "run stopped early: "+err.Error())
			r.step("error: %v", err)
		}
	}
	if r.sim == nil {
		r.s.mark("collect")
		r.step("timing kollect collect and kubectl on the same objects (%d runs)", c.CollectRuns)
		if r.res.Collect, err = compareCollect(ctx, filepath.Join(c.BinDir, "kollect"), r.p.Kubeconfig, r.p.Dir, c); err != nil {
			r.res.Notes = append(r.res.Notes, "collect comparison failed: "+err.Error())
		}
	}
	stopSampling()
	r.finish()
	return r.res, r.write()
}

// measureGit restarts the demo's Git server on the same repositories with
// a CPU log, so that the Git server's CPU is its http-backends' alone, not
// every child the load-test process reaped (kollect collect, kubectl).
func (r *run) measureGit() error {
	dir := filepath.Dir(r.p.Git.Root)
	if err := r.p.Git.Stop(); err != nil {
		return err
	}
	r.gitCPULog = filepath.Join(r.p.Dir, "git-cpu.log")
	g, err := testenv.NewGit(dir, testenv.GitOptions{CPULog: r.gitCPULog})
	if err != nil {
		return err
	}
	r.p.Git, r.p.RepoURL = g, g.URL+"/inventory.git"
	return nil
}

// startBus replaces the demo's embedded NATS with a JetStream cluster of
// c.NATSNodes nats-server processes, so that the bus's CPU and memory are
// its own and its streams are replicated as in production.
func (r *run) startBus() error {
	r.p.NATS.Stop()
	r.p.NATS = nil
	r.step("starting a JetStream cluster of %d nats-server processes", max(1, r.c.NATSNodes))
	var err error
	if r.bus, err = testenv.NewNATSCluster(filepath.Join(r.c.BinDir, "nats-server"), filepath.Join(r.p.Dir, "nats-cluster"), max(1, r.c.NATSNodes)); err != nil {
		return err
	}
	svc := *r.p
	svc.NATS = &testenv.NATS{URL: r.bus.URL}
	r.svc = &svc
	r.res.Settings.NATSNodes = len(r.bus.Nodes)
	return nil
}

// busIn is the bytes Kollect's services published to the bus so far.
func (r *run) busIn() (float64, error) {
	n, err := r.bus.ClientInBytes(func(name string) bool {
		return strings.HasPrefix(name, "kollect-") && name != samplerClientName
	})
	return float64(n), err
}

// build compiles the services and the kollect command.
func (r *run) build(ctx context.Context) error {
	if r.c.NoBuild {
		return nil
	}
	if err := demo.Build(ctx, r.root, r.c.BinDir, func(s string) { r.step("%s", s) }); err != nil {
		return err
	}
	r.step("building nats-server")
	if _, err := testenv.BuildNATSServer(ctx, r.root, r.c.BinDir); err != nil {
		return err
	}
	r.step("building kollect")
	cmd := exec.CommandContext(ctx, "go", "build", "-o", filepath.Join(r.c.BinDir, "kollect"), "./cmd/kollect")
	cmd.Dir = r.root
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("build kollect: %w\n%s", err, out)
	}
	return nil
}

// createAll creates the namespaces and the objects.
func (r *run) createAll(ctx context.Context) error {
	cfg := *r.p.Kube.Config
	cfg.QPS, cfg.Burst = r.c.QPS, r.c.Burst
	cfg.WarningHandler = rest.NoWarnings{}
	cs, err := kubernetes.NewForConfig(&cfg)
	if err != nil {
		return err
	}
	dyn, err := dynamic.NewForConfig(&cfg)
	if err != nil {
		return err
	}
	r.cs = cs
	km := kubeMutator{cs: cs, dyn: dyn}
	r.mut = km
	r.s.mark("create")
	r.step("creating %d namespaces and %d objects with %d workers", r.c.Namespaces, r.c.Objects, r.c.Workers)
	start := time.Now()
	if err := createNamespaces(ctx, cs, r.c.Namespaces, r.c.Tier); err != nil {
		return err
	}
	if r.c.Source == SourceSim {
		if err := r.startSim(ctx); err != nil {
			return err
		}
		r.res.CreateSeconds = time.Since(start).Seconds()
		r.res.Settings.Source = SourceSim
		r.countKinds()
		return nil
	}
	if slices.Contains(r.c.Kinds, WidgetKind) {
		if err := r.installWidgets(ctx, km); err != nil {
			return err
		}
	}
	if r.objs, err = createObjects(ctx, km, r.c); err != nil {
		return err
	}
	r.res.CreateSeconds = time.Since(start).Seconds()
	r.countKinds()
	r.res.Settings.AvgBytes = averageSize(r.c.Tier, r.c.Kinds)
	r.step("created %d objects in %.1fs (%.0f/s)", len(r.objs), r.res.CreateSeconds, float64(len(r.objs))/r.res.CreateSeconds)
	return nil
}

// logDir is where the services log.
func (r *run) logDir() string { return filepath.Join(r.p.Dir, "logs") }

// keepLogs copies the service logs next to the report when the run failed.
func (r *run) keepLogs() {
	dst := filepath.Join(os.TempDir(), "kollect-loadtest-logs-"+r.c.Tier)
	_ = os.MkdirAll(dst, 0o755)
	files, _ := filepath.Glob(filepath.Join(r.logDir(), "*.log"))
	for _, f := range files {
		if b, err := os.ReadFile(f); err == nil {
			_ = os.WriteFile(filepath.Join(dst, filepath.Base(f)), b[max(0, len(b)-200000):], 0o644)
		}
	}
}
