package engine

import (
	"context"
	"sync"
	"sync/atomic"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/workqueue"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/collector/internal/informers"
	"kollect.dev/kollect/services/collector/internal/metrics"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// Marker is told which Targets' status may have changed.
type Marker interface {
	// Mark records that ref's status may have changed.
	Mark(ref bus.ConfigRef)
}

// Config wires an Engine.
type Config struct {
	// Informers watches the cluster.
	Informers *informers.Manager
	// Rows is the rows bucket; New registers the Engine for its failed
	// puts (rowstore.Store.OnFailure).
	Rows *rowstore.Store
	// Metrics receives extraction, bus and Profile metrics.
	Metrics *metrics.Metrics
	// Status is told when a Target's status may have changed.
	Status Marker
	// Extract are the operator-level extraction options.
	Extract extract.Options
	// Workers is the number of objects evaluated in parallel.
	Workers int
	// Log receives Target lifecycle lines and write failures.
	Log logr.Logger
}

// Engine evaluates objects for Targets and keeps the rows bucket current.
type Engine struct {
	cfg    Config
	queue  workqueue.TypedRateLimitingInterface[item]
	errLog *errorLog

	mu      sync.RWMutex
	targets map[bus.ConfigRef]*targetState
	byGVK   map[schema.GroupVersionKind]map[bus.ConfigRef]*targetState // active Targets only

	configured atomic.Bool
	busy       atomic.Int64 // items taken from the queue and not done yet

	// holdMu guards complete and desired: whether the config bucket holds
	// bus.ConfigCompleteKey, and the Targets it configures (see hold.go).
	holdMu   sync.Mutex
	complete bool
	desired  map[bus.ConfigRef]bool
}

// item is one unit of work: an object to look at (gvk, key, uid), or a
// Target whose rows to sweep (sweep set).
type item struct {
	gvk   schema.GroupVersionKind
	key   string
	uid   types.UID
	sweep bus.ConfigRef
	gone  bool // sweep: the GVK stopped being served
}

// New creates an Engine; Run starts its workers.
func New(cfg Config) *Engine {
	if cfg.Workers < 1 {
		cfg.Workers = 1
	}
	e := &Engine{
		cfg: cfg,
		queue: workqueue.NewTypedRateLimitingQueueWithConfig(workqueue.DefaultTypedControllerRateLimiter[item](),
			workqueue.TypedRateLimitingQueueConfig[item]{Name: "collector"}),
		errLog:  newErrorLog(cfg.Log),
		targets: map[bus.ConfigRef]*targetState{},
		byGVK:   map[schema.GroupVersionKind]map[bus.ConfigRef]*targetState{},
	}
	if cfg.Rows != nil {
		cfg.Rows.OnFailure(e.retryRow)
	}
	return e
}

// Run waits for the Namespace cache, then evaluates queued work until ctx is
// cancelled.
func (e *Engine) Run(ctx context.Context) error {
	defer e.queue.ShutDown()
	if !e.cfg.Informers.WaitForNamespaces(ctx) {
		return nil
	}
	var wg sync.WaitGroup
	for range e.cfg.Workers {
		wg.Go(func() { e.work(ctx) })
	}
	<-ctx.Done()
	e.queue.ShutDown()
	wg.Wait()
	return nil
}

// Configured reports whether the first full set of Targets was applied.
func (e *Engine) Configured() bool { return e.configured.Load() }

func (e *Engine) work(ctx context.Context) {
	for {
		it, shutdown := e.queue.Get()
		if shutdown {
			return
		}
		e.busy.Add(1)
		var err error
		if it.sweep.Name != "" {
			err = e.sweep(ctx, it)
		} else {
			err = e.processObject(ctx, it)
		}
		switch {
		case err == nil:
			e.queue.Forget(it)
		case ctx.Err() == nil:
			e.errLog.log(err)
			e.queue.AddRateLimited(it)
		}
		e.queue.Done(it)
		e.busy.Add(-1)
	}
}

// activeTargets returns the active Targets of gvk.
func (e *Engine) activeTargets(gvk schema.GroupVersionKind) []*targetState {
	e.mu.RLock()
	defer e.mu.RUnlock()
	out := make([]*targetState, 0, len(e.byGVK[gvk]))
	for _, ts := range e.byGVK[gvk] {
		out = append(out, ts)
	}
	return out
}

func (e *Engine) target(ref bus.ConfigRef) *targetState {
	e.mu.RLock()
	defer e.mu.RUnlock()
	return e.targets[ref]
}
