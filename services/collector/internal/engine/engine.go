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
	"kollect.dev/kollect/services/collector/internal/metrics"
)

// Marker is told which Targets' status may have changed.
type Marker interface {
	// Mark records that ref's status may have changed.
	Mark(ref bus.ConfigRef)
}

// Config wires an Engine.
type Config struct {
	// Informers watches the cluster (*informers.Manager).
	Informers Informers
	// Rows is the rows bucket (*rowstore.Store); New registers the Engine
	// for its failed puts (OnFailure).
	Rows Rows
	// Metrics receives extraction, bus and Profile metrics.
	Metrics *metrics.Metrics
	// Status is told when a Target's status may have changed.
	Status Marker
	// Extract are the operator-level extraction options.
	Extract extract.Options
	// Workers is the number of objects evaluated in parallel.
	Workers int
	// Shards is the number of shards Targets are spread over
	// (shard.Of(namespace/name)); the engine works only on the Targets of
	// the shards it acquired. Zero works on every Target, with no shards.
	Shards int
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

	// ownMu orders the changes of what the engine works on: Targets
	// becoming owned (their rows loaded, then written) or not.
	ownMu sync.Mutex
	held  map[int]bool // shards acquired; under mu
	// gone are Targets deleted while the engine did not work on their
	// shard: taking the shard purges what rows they left (see Deleted); under
	// mu.
	gone map[bus.ConfigRef]bool

	configured atomic.Bool
	busy       atomic.Int64 // items taken from the queue and not done yet

	// holdMu guards complete and desired: whether the config bucket holds
	// bus.ConfigCompleteKey, and the Targets it configures (see hold.go).
	holdMu   sync.Mutex
	complete bool
	desired  map[bus.ConfigRef]bool
}

// item is one unit of work, of one of two kinds; it is a comparable value,
// so that the queue merges equal items.
type item struct {
	kind itemKind
	// objectItem: the object to look at.
	gvk schema.GroupVersionKind
	key string // cache key: namespace/name, or name
	uid types.UID
	// sweepItem: the Target whose rows to sweep, and whether its GVK
	// stopped being served (every row goes). objectItem: the one Target
	// to evaluate the object for (a Target that changed); zero: every
	// active Target of the GVK.
	target bus.ConfigRef
	gone   bool
}

// itemKind says what an item asks for.
type itemKind uint8

const (
	// objectItem: bring the rows of one object in line with the cache.
	objectItem itemKind = iota + 1
	// sweepItem: delete the rows of a Target whose objects are gone.
	sweepItem
)

func objectWork(gvk schema.GroupVersionKind, key string, uid types.UID) item {
	return item{kind: objectItem, gvk: gvk, key: key, uid: uid}
}

// targetObjectWork asks for one object to be evaluated for Target ref only.
func targetObjectWork(gvk schema.GroupVersionKind, key string, uid types.UID, ref bus.ConfigRef) item {
	return item{kind: objectItem, gvk: gvk, key: key, uid: uid, target: ref}
}

func sweepWork(ref bus.ConfigRef, gone bool) item {
	return item{kind: sweepItem, target: ref, gone: gone}
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
		held:    map[int]bool{},
		gone:    map[bus.ConfigRef]bool{},
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
		switch it.kind {
		case sweepItem:
			err = e.sweep(ctx, it)
		case objectItem:
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
