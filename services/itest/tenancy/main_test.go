package tenancy

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kollect.dev/kollect/pkg/testenv"
)

// suite is the system every test of the binary shares.
var suite struct {
	kube    *testenv.Kube
	admin   client.Client
	bus     *testenv.NATS
	dir     string
	logPath string
	log     logr.Logger
	tap     *tap
	webhook webhookSetup
	phase   *phase
	// stops run after every test, in reverse order (peers started on
	// first use).
	mu    sync.Mutex
	stops []func()
}

// TestMain starts the API server, the bus and the open phase of the
// system once, runs the tests, and stops everything it started.
func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	parallelVectors()
	dir, err := os.MkdirTemp("", "kollect-tenancy-")
	if err != nil {
		fmt.Fprintf(os.Stderr, "make folder: %v\n", err)
		return 1
	}
	suite.dir = dir
	code := 1
	if err := setUp(); err != nil {
		fmt.Fprintf(os.Stderr, "set up: %v\n", err)
	} else {
		code = m.Run()
	}
	if err := tearDown(); err != nil {
		fmt.Fprintf(os.Stderr, "tear down: %v\n", err)
		code = 1
	}
	if code != 0 {
		fmt.Fprintf(os.Stderr, "service logs and bus tap kept in %s\n", dir)
	} else {
		_ = os.RemoveAll(dir)
	}
	return code
}

// parallelVectors lets every attack run at once unless -test.parallel is
// given: the vectors wait on the system, not on the CPU, and the default
// (GOMAXPROCS, 2 on CI) would queue their waits one after another.
func parallelVectors() {
	flag.Parse()
	explicit := false
	flag.Visit(func(f *flag.Flag) { explicit = explicit || f.Name == "test.parallel" })
	if !explicit {
		_ = flag.Set("test.parallel", "64")
	}
}

// setUp sets the exporter's ambient identity, then starts the API server,
// the bus, the bus tap, the webhook registration and the open phase.
func setUp() error {
	if err := setAmbientIdentity(suite.dir); err != nil {
		return err
	}
	kube, err := testenv.NewKube()
	if err != nil {
		return fmt.Errorf("start kube-apiserver: %w", err)
	}
	suite.kube, suite.admin = kube, kube.Client
	suite.logPath = filepath.Join(suite.dir, "services.log")
	logs, err := os.Create(suite.logPath)
	if err != nil {
		return fmt.Errorf("create log file: %w", err)
	}
	suite.log = fileLogger(logs)
	ctrllog.SetLogger(suite.log.WithName("controller-runtime"))
	suite.stops = append(suite.stops, func() { _ = logs.Close() })
	if suite.bus, err = testenv.NewNATS(filepath.Join(suite.dir, "nats"), -1); err != nil {
		return fmt.Errorf("start NATS: %w", err)
	}
	if suite.tap, err = startTap(suite.bus.URL, filepath.Join(suite.dir, "bus-tap.bin")); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	if suite.webhook, err = installWebhook(ctx, kube); err != nil {
		return err
	}
	suite.phase, err = startPhase(ctx, openPhase)
	return err
}

// tearDown stops the running phase, the peers, the tap, the bus and the
// API server.
func tearDown() error {
	var errs []error
	if suite.phase != nil {
		errs = append(errs, suite.phase.stop())
	}
	suite.mu.Lock()
	for i := len(suite.stops) - 1; i >= 0; i-- {
		suite.stops[i]()
	}
	suite.mu.Unlock()
	if suite.tap != nil {
		errs = append(errs, suite.tap.close())
	}
	if suite.bus != nil {
		suite.bus.Stop()
	}
	if suite.kube != nil {
		errs = append(errs, suite.kube.Stop())
	}
	for _, err := range errs {
		if err != nil {
			return err
		}
	}
	return nil
}

// onStop registers stop to run when the test binary ends.
func onStop(stop func()) {
	suite.mu.Lock()
	defer suite.mu.Unlock()
	suite.stops = append(suite.stops, stop)
}

// fileLogger writes every service's logs, one line each, to f.
func fileLogger(f *os.File) logr.Logger {
	var mu sync.Mutex
	return funcr.New(func(prefix, args string) {
		mu.Lock()
		defer mu.Unlock()
		fmt.Fprintf(f, "%s %s %s\n", time.Now().UTC().Format("15:04:05.000"), prefix, args)
	}, funcr.Options{Verbosity: 1})
}
