package informers

import (
	"fmt"
	"maps"
	"slices"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/restmapper"
	"k8s.io/client-go/tools/cache"
)

// Handler receives the Manager's events. Every method must return quickly:
// implementations enqueue work and read the cache later.
type Handler interface {
	// ObjectChanged reports that the object with key (namespace/name) and
	// uid was added, updated or deleted.
	ObjectChanged(gvk schema.GroupVersionKind, key string, uid types.UID)
	// NamespaceChanged reports that a namespace appeared, disappeared or
	// changed its labels or annotations.
	NamespaceChanged(name string)
	// Synced reports that the current informer of gvk holds a full list.
	Synced(gvk schema.GroupVersionKind)
	// Gone reports that gvk stopped being served (its CRD was deleted): its
	// objects no longer exist.
	Gone(gvk schema.GroupVersionKind)
	// StateChanged reports that State(gvk) changed.
	StateChanged(gvk schema.GroupVersionKind)
}

// State is why the objects of a GVK cannot be watched; the zero value means
// they can.
type State struct {
	// Reason is a condition reason: Forbidden, or Progressing while the GVK
	// is not served (yet).
	Reason string
	// Message names the GVK and what is wrong.
	Message string
}

// Config configures a Manager.
type Config struct {
	// Rest is the connection to the API server.
	Rest *rest.Config
	// Log receives informer lifecycle lines.
	Log logr.Logger
	// MaxRetryInterval bounds the wait between discovery retries of a GVK
	// that is not served.
	MaxRetryInterval time.Duration
}

// Manager runs the informers. Set and Remove may be called before and while
// Run runs.
type Manager struct {
	cfg     Config
	handler Handler // set by Run, before any informer starts
	clients *clients
	mapper  *restmapper.DeferredDiscoveryRESTMapper

	namespaces cache.SharedIndexInformer
	crds       cache.SharedIndexInformer

	mu          sync.Mutex
	desired     map[schema.GroupVersionKind]Requirement
	running     map[schema.GroupVersionKind]*kindInformers
	states      map[schema.GroupVersionKind]State // discovery states
	resetMapper bool
	deleted     map[string]time.Time // groups of deleted CRDs, suspect until then
	kick        chan struct{}
}

// New creates a Manager; Run starts it.
func New(cfg Config) (*Manager, error) {
	dc, err := discovery.NewDiscoveryClientForConfig(cfg.Rest)
	if err != nil {
		return nil, fmt.Errorf("create discovery client: %w", err)
	}
	cl, err := newClients(cfg.Rest)
	if err != nil {
		return nil, err
	}
	mc, err := metadata.NewForConfig(cfg.Rest)
	if err != nil {
		return nil, fmt.Errorf("create metadata client: %w", err)
	}
	if cfg.MaxRetryInterval <= 0 {
		cfg.MaxRetryInterval = 30 * time.Second
	}
	m := &Manager{
		cfg: cfg, clients: cl,
		mapper:  restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc)),
		desired: map[schema.GroupVersionKind]Requirement{},
		running: map[schema.GroupVersionKind]*kindInformers{},
		states:  map[schema.GroupVersionKind]State{},
		deleted: map[string]time.Time{},
		kick:    make(chan struct{}, 1),
	}
	if err := m.newMetadataInformers(mc); err != nil {
		return nil, err
	}
	return m, nil
}

// Set declares what the Targets of gvk need; the informer starts, or
// restarts when it does not cover req.
func (m *Manager) Set(gvk schema.GroupVersionKind, req Requirement) {
	m.mu.Lock()
	m.desired[gvk] = req
	m.mu.Unlock()
	m.poke()
}

// Remove releases the informer of gvk.
func (m *Manager) Remove(gvk schema.GroupVersionKind) {
	m.mu.Lock()
	delete(m.desired, gvk)
	delete(m.states, gvk)
	m.mu.Unlock()
	m.poke()
}

func (m *Manager) poke() {
	select {
	case m.kick <- struct{}{}:
	default:
	}
}

// Store returns the cache of gvk's current informers and whether it holds
// a full list; ok is false when no informer runs for gvk.
func (m *Manager) Store(gvk schema.GroupVersionKind) (store Cache, synced, ok bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k := m.running[gvk]
	if k == nil {
		return nil, false, false
	}
	return k.view, k.synced(), true
}

// Stores returns the caches of every running informer.
func (m *Manager) Stores() map[schema.GroupVersionKind]Cache {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[schema.GroupVersionKind]Cache, len(m.running))
	for gvk, k := range m.running {
		out[gvk] = k.view
	}
	return out
}

// State returns why gvk cannot be watched, if it cannot.
func (m *Manager) State(gvk schema.GroupVersionKind) State {
	m.mu.Lock()
	k, s := m.running[gvk], m.states[gvk]
	var parts []*instance
	if k != nil {
		parts = slices.Collect(maps.Values(k.parts))
	}
	m.mu.Unlock()
	for _, p := range parts {
		if f := p.forbiddenState(); f.Reason != "" {
			return f
		}
	}
	return s
}

// ObjectCounts returns the number of cached objects per GVK, keyed by
// GVKString.
func (m *Manager) ObjectCounts() map[string]int {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make(map[string]int, len(m.running))
	for gvk, k := range m.running {
		n := 0
		for _, p := range k.parts {
			n += len(p.inf.GetStore().ListKeys())
		}
		out[GVKString(gvk)] = n
	}
	return out
}

// GVKString formats a GVK as group/version/Kind (version/Kind for the core
// group), for logs, metrics and messages.
func GVKString(gvk schema.GroupVersionKind) string {
	return gvk.GroupVersion().String() + "/" + gvk.Kind
}

// Namespaced reports whether gvk is a namespaced kind; known is false while
// no informer runs for it.
func (m *Manager) Namespaced(gvk schema.GroupVersionKind) (namespaced, known bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.running[gvk]
	if !ok {
		return false, false
	}
	return k.base.namespaced, true
}
