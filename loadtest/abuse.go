package loadtest

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"kollect.dev/kollect/deploy/demo"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// AbuseConfig are the settings of the abuse suite (`make test` runs
// DefaultAbuseConfig): one tenant floods the bus while another keeps
// changing, with the chart's defaults (no KollectScope, no tuning).
type AbuseConfig struct {
	// Flood is how long the flood and the second tenant's changes run.
	Flood time.Duration
	// Sinks and Inventories are the flooding tenant's Kafka sinks and
	// inventories (each bound to every sink at 1ms); Replays its
	// KollectReplays, created as the flood starts.
	Sinks, Inventories, Replays int
	// Blobs ConfigMaps of BlobBytes each make the flooding tenant's
	// inventories near 1 MiB; one of them is rewritten every ChurnEvery.
	Blobs, BlobBytes int
	ChurnEvery       time.Duration
	// SteadyEvery is how often the second tenant changes its ConfigMap.
	SteadyEvery time.Duration
	// MaxGrowth bounds the growth of the snapshot stream and the envelope
	// store over the flood; MaxLatency each change of the second tenant
	// until its sink holds it; MaxRSS each service's peak resident memory.
	MaxGrowth  int64
	MaxLatency time.Duration
	MaxRSS     float64 // MiB
	// BinDir holds the service binaries and nats-server, built unless
	// NoBuild.
	BinDir  string
	NoBuild bool
	// Log receives progress lines.
	Log io.Writer `json:"-"`
}

// DefaultAbuseConfig is the flood of issue #33: 20 sinks × 5 inventories at
// 1ms over ~900 KiB of rows, 1000 revisions for 90 days asked, 10 replays,
// for 90 s.
func DefaultAbuseConfig() AbuseConfig {
	return AbuseConfig{Flood: 90 * time.Second, Sinks: 20, Inventories: 5, Replays: 10, Blobs: 9, BlobBytes: 100 << 10,
		ChurnEvery: 3 * time.Second, SteadyEvery: 2 * time.Second, MaxGrowth: 50 << 20, MaxLatency: 10 * time.Second,
		MaxRSS: 512, Log: io.Discard}
}

// AbuseReport is what the abuse suite measured and every check that failed.
type AbuseReport struct {
	Config AbuseConfig
	// Growth is how many bytes the snapshot stream and the envelope store
	// grew by over the flood.
	Growth int64
	// Latencies are the second tenant's changes until its sink held them.
	Latencies []time.Duration
	// PeakRSS is each service's peak resident memory (MiB).
	PeakRSS map[string]float64
	// Failures are the checks that failed; empty when the bus held.
	Failures               []string
	LoadBefore, LoadAfter  string
	Seconds                float64
	ReplayEventsAtRestart  int
	ReplayEventsAfterCheck int
}

func (r *AbuseReport) fail(format string, args ...any) {
	r.Failures = append(r.Failures, fmt.Sprintf(format, args...))
}

// abuseRun is an abuse suite in progress.
type abuseRun struct {
	c     AbuseConfig
	rep   *AbuseReport
	dir   string
	kube  *testenv.Kube
	cs    kubernetes.Interface
	nats  *testenv.NATSProcess
	nc    *nats.Conn
	js    jetstream.JetStream
	kafka *kafkaSink
	sup   *supervisor
}

func (r *abuseRun) logf(format string, args ...any) {
	fmt.Fprintf(r.c.Log, "[abuse %s] %s\n", time.Now().UTC().Format("15:04:05"), fmt.Sprintf(format, args...))
}

// abuseInstances are the services of the suite, each once.
var abuseInstances = []string{"control", "collector", "aggregator-a", "snapshotexporter", "databaseexporter", "eventexporter"}

// RunAbuse runs the abuse suite. A check that failed is in the report's
// Failures; errors are for a harness that could not run.
func RunAbuse(ctx context.Context, c AbuseConfig) (*AbuseReport, error) {
	root, err := testenv.RepoRoot()
	if err != nil {
		return nil, err
	}
	ctrllog.SetLogger(logr.Discard())
	r := &abuseRun{c: c, rep: &AbuseReport{Config: c, PeakRSS: map[string]float64{}, LoadBefore: loadavg()}}
	start := time.Now()
	if !c.NoBuild {
		if err := demo.Build(ctx, root, c.BinDir, func(s string) { r.logf("%s", s) }); err != nil {
			return nil, err
		}
		if _, err := testenv.BuildNATSServer(ctx, root, c.BinDir); err != nil {
			return nil, err
		}
	}
	if r.dir, err = os.MkdirTemp("", "kollect-abuse-"); err != nil {
		return nil, err
	}
	defer r.stop()
	if err := r.startPeers(); err != nil {
		return nil, err
	}
	if err := r.setUp(ctx); err != nil {
		return nil, err
	}
	if err := r.flood(ctx); err != nil {
		return nil, err
	}
	r.checkStatus(ctx)
	if err := r.checkReplaysRunOnce(ctx); err != nil {
		return nil, err
	}
	r.rep.Seconds, r.rep.LoadAfter = time.Since(start).Seconds(), loadavg()
	return r.rep, nil
}

// startPeers starts the API server, nats-server and the in-process Kafka.
func (r *abuseRun) startPeers() error {
	var err error
	r.logf("starting kube-apiserver, nats-server and Kafka")
	certs := filepath.Join(r.dir, "apiserver-certs")
	if err := os.MkdirAll(certs, 0o700); err != nil {
		return err
	}
	if r.kube, err = testenv.NewRestartableKube(certs); err != nil {
		return err
	}
	if r.cs, err = kubernetes.NewForConfig(r.kube.Config); err != nil {
		return err
	}
	kubeconfig := filepath.Join(r.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, r.kube.Env.KubeConfig, 0o600); err != nil {
		return err
	}
	if r.nats, err = testenv.NewNATSProcess(filepath.Join(r.c.BinDir, "nats-server"), filepath.Join(r.dir, "nats")); err != nil {
		return err
	}
	if r.nc, err = nats.Connect(r.nats.URL, nats.MaxReconnects(-1)); err != nil {
		return err
	}
	if r.js, err = jetstream.New(r.nc); err != nil {
		return err
	}
	if r.kafka, err = newKafkaSink(); err != nil {
		return err
	}
	logs := filepath.Join(r.dir, "logs")
	if err := os.MkdirAll(logs, 0o755); err != nil {
		return err
	}
	r.sup = newSupervisor(r.c.BinDir, logs, &demo.Peers{Dir: r.dir, Kube: r.kube, Kubeconfig: kubeconfig,
		NATS: &testenv.NATS{URL: r.nats.URL}})
	return nil
}

func (r *abuseRun) stop() {
	if r.sup != nil {
		_ = r.sup.stopAll(20 * time.Second)
	}
	if r.nc != nil {
		r.nc.Close()
	}
	if r.kafka != nil {
		r.kafka.close()
	}
	if r.nats != nil {
		_ = r.nats.Kill()
	}
	if r.kube != nil {
		_ = r.kube.Stop()
	}
	if os.Getenv("KOLLECT_ABUSE_KEEP") == "" {
		_ = os.RemoveAll(r.dir)
	} else {
		r.logf("kept %s", r.dir)
	}
}

// setUp creates both tenants' objects, starts the services and waits for
// the first snapshots.
func (r *abuseRun) setUp(ctx context.Context) error {
	for _, ns := range []string{ControlNamespace, AbuserNamespace, SteadyNamespace} {
		if _, err := r.cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}},
			metav1.CreateOptions{}); err != nil {
			return err
		}
	}
	for i := range r.c.Blobs {
		if err := r.putBlob(ctx, i, 'a', true); err != nil {
			return err
		}
	}
	if _, err := r.cs.CoreV1().ConfigMaps(SteadyNamespace).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{
		Name: "steady", Annotations: map[string]string{SeqAnnotation: "0"}}}, metav1.CreateOptions{}); err != nil {
		return err
	}
	for _, inst := range abuseInstances {
		if err := r.sup.start(inst, ""); err != nil {
			return err
		}
	}
	if err := apply(ctx, r.kube.Client, accessResources()+"\n---\n"+
		abuserResources(r.kafka.addr, r.c.Sinks, r.c.Inventories)+"---\n"+steadyResources(r.kafka.addr)); err != nil {
		return err
	}
	r.logf("waiting for the first snapshots")
	if _, err := r.steadyLatency(ctx, "0", 3*time.Minute); err != nil {
		return fmt.Errorf("the steady tenant's first export: %w (logs in %s)", err, r.sup.logDir)
	}
	return testenv.Poll(ctx, 3*time.Minute, func() error {
		for i := range r.c.Inventories {
			inv := "flood-" + strconv.Itoa(i)
			if n, err := r.subjectEvents(ctx, inv); err != nil || n == 0 {
				return fmt.Errorf("no snapshot of %s yet (%v)", inv, err)
			}
		}
		return nil
	}, testenv.Every(100*time.Millisecond))
}

// putBlob writes ConfigMap blob-i of the flooding tenant, its data the
// letter repeated.
func (r *abuseRun) putBlob(ctx context.Context, i int, letter byte, create bool) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "blob-" + strconv.Itoa(i), Namespace: AbuserNamespace},
		Data: map[string]string{"blob": strings.Repeat(string(letter), r.c.BlobBytes)}}
	var err error
	if create {
		_, err = r.cs.CoreV1().ConfigMaps(AbuserNamespace).Create(ctx, cm, metav1.CreateOptions{})
	} else {
		_, err = r.cs.CoreV1().ConfigMaps(AbuserNamespace).Update(ctx, cm, metav1.UpdateOptions{})
	}
	return err
}

// subjectEvents is the number of events on a flooding inventory's subject.
func (r *abuseRun) subjectEvents(ctx context.Context, inv string) (uint64, error) {
	s, err := r.js.Stream(ctx, bus.StreamSnapshots)
	if err != nil {
		return 0, err
	}
	subject := "kollect.snapshots." + AbuserNamespace + "." + inv
	info, err := s.Info(ctx, jetstream.WithSubjectFilter(subject))
	if err != nil {
		return 0, err
	}
	return info.State.Subjects[subject], nil
}

// busBytes is what the snapshot stream and the envelope store hold.
func (r *abuseRun) busBytes(ctx context.Context) (int64, error) {
	var n int64
	for _, name := range []string{bus.StreamSnapshots, "OBJ_" + bus.ObjectStoreEnvelopes} {
		s, err := r.js.Stream(ctx, name)
		if err != nil {
			return 0, err
		}
		info, err := s.Info(ctx)
		if err != nil {
			return 0, err
		}
		n += int64(info.State.Bytes) //nolint:gosec // G115: a stream's bytes fit
	}
	return n, nil
}

// steadyLatency sets the steady tenant's seq and returns how long its sink
// took to hold it, or an error after within.
func (r *abuseRun) steadyLatency(ctx context.Context, seq string, within time.Duration) (time.Duration, error) {
	cm, err := r.cs.CoreV1().ConfigMaps(SteadyNamespace).Get(ctx, "steady", metav1.GetOptions{})
	if err != nil {
		return 0, err
	}
	if cm.Annotations[SeqAnnotation] != seq {
		cm.Annotations[SeqAnnotation] = seq
		if cm, err = r.cs.CoreV1().ConfigMaps(SteadyNamespace).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			return 0, err
		}
	}
	t0 := time.Now()
	err = testenv.Poll(ctx, within, func() error {
		v, err := r.kafka.readTopic(ctx, steadyTopic)
		if err != nil {
			return err
		}
		if got := v.rows[string(cm.UID)]; got != seq {
			return fmt.Errorf("the sink holds seq %q, want %q", got, seq)
		}
		return nil
	}, testenv.Every(50*time.Millisecond))
	return time.Since(t0), err
}

// flood runs the flood (replays, churn) for c.Flood while the steady tenant
// changes every SteadyEvery, and checks growth, latency, memory and exits.
func (r *abuseRun) flood(ctx context.Context) error {
	before, err := r.busBytes(ctx)
	if err != nil {
		return err
	}
	var docs []string
	for i := range r.c.Replays {
		docs = append(docs, replayDoc("replay-"+strconv.Itoa(i), "flood-"+strconv.Itoa(i%r.c.Inventories),
			"kafka-"+strconv.Itoa(i%r.c.Sinks)))
	}
	if err := apply(ctx, r.kube.Client, strings.Join(docs, "\n---\n")); err != nil {
		return err
	}
	r.logf("flooding for %v", r.c.Flood)
	fctx, cancel := context.WithTimeout(ctx, r.c.Flood)
	defer cancel()
	churned := make(chan error, 1)
	go func() { churned <- r.churn(ctx, fctx.Done()) }()
	tick := time.NewTicker(r.c.SteadyEvery)
	defer tick.Stop()
	for seq := 1; fctx.Err() == nil; seq++ {
		d, err := r.steadyLatency(ctx, strconv.Itoa(seq), r.c.MaxLatency)
		if err != nil {
			r.rep.fail("change %d of the steady tenant did not reach its sink within %v: %v", seq, r.c.MaxLatency, err)
		}
		r.rep.Latencies = append(r.rep.Latencies, d)
		select {
		case <-fctx.Done():
		case <-tick.C:
		}
	}
	if err := <-churned; err != nil {
		return err
	}
	after, err := r.busBytes(ctx)
	if err != nil {
		return err
	}
	r.rep.Growth = after - before
	if r.rep.Growth > r.c.MaxGrowth {
		r.rep.fail("the snapshot stream and envelope store grew by %d MiB over the flood, want at most %d MiB",
			r.rep.Growth>>20, r.c.MaxGrowth>>20)
	}
	for _, inst := range abuseInstances {
		p := r.sup.get(inst)
		if p == nil {
			continue
		}
		st, err := readProc(p.cmd.Process.Pid)
		if err != nil {
			return err
		}
		r.rep.PeakRSS[inst] = st.HWM
		if st.HWM > r.c.MaxRSS && inst != "control" && inst != "collector" {
			r.rep.fail("%s peaked at %.0f MiB resident, above %.0f MiB", inst, st.HWM, r.c.MaxRSS)
		}
	}
	for _, u := range r.sup.takeUnexpected() {
		r.rep.fail("a service restarted: %s", u)
	}
	r.logf("flood done: grew %.1f MiB, %d steady changes, peak RSS %v", float64(r.rep.Growth)/(1<<20),
		len(r.rep.Latencies), r.rep.PeakRSS)
	return nil
}

// churn rewrites one of the flooding tenant's ConfigMaps every ChurnEvery
// until ctx ends: each is a new near-1 MiB revision of every inventory.
// Its writes use ctx, not the flood's deadline (done), which would make
// the client's rate limiter refuse a write near the end.
func (r *abuseRun) churn(ctx context.Context, done <-chan struct{}) error {
	tick := time.NewTicker(r.c.ChurnEvery)
	defer tick.Stop()
	for i := 0; ; i++ {
		select {
		case <-done:
			return nil
		case <-tick.C:
		}
		if err := r.putBlob(ctx, i%r.c.Blobs, byte('b'+i%20), false); err != nil {
			return err
		}
	}
}

// sortedLatencies returns the report's latencies in increasing order.
func (r *AbuseReport) sortedLatencies() []time.Duration {
	l := slices.Clone(r.Latencies)
	slices.Sort(l)
	return l
}
