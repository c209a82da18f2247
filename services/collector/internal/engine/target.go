package engine

import (
	"sync"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/tools/cache"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/target"
)

// targetState is one Target as the engine knows it.
type targetState struct {
	ref   bus.ConfigRef
	label string // namespace/name, or the ClusterTarget's name

	// mu is held for writing while the Target changes or is removed, and
	// for reading while a worker evaluates objects for it and writes their
	// rows, so that no row is written for a removed or suspended Target.
	mu       sync.RWMutex
	cfg      busv1.TargetConfig
	compiled *target.Compiled // nil when the entry does not compile
	invalid  error
	removed  bool
	// owned: the engine works on the Target's shard (Acquire).
	owned bool

	statsMu   sync.Mutex
	failing   map[types.UID]string // objects whose latest evaluation failed
	lastError string
}

func newTargetState(ref bus.ConfigRef) *targetState {
	return &targetState{ref: ref, label: cache.NewObjectName(ref.Namespace, ref.Name).String(), failing: map[types.UID]string{}}
}

// active reports whether the Target collects; mu is held.
func (t *targetState) active() bool {
	return t.owned && !t.removed && t.compiled != nil && !t.cfg.Suspend
}

// gvk returns the Target's GVK; mu is held.
func (t *targetState) gvk() schema.GroupVersionKind {
	if t.compiled == nil {
		return schema.GroupVersionKind{}
	}
	return t.compiled.GVK
}

// fail records an evaluation failure of uid; it reports whether the
// Target's status changed.
func (t *targetState) fail(uid types.UID, msg string) bool {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	changed := t.failing[uid] != msg || t.lastError != msg
	t.failing[uid], t.lastError = msg, msg
	return changed
}

// clearFailure forgets uid's failure; it reports whether the status changed.
func (t *targetState) clearFailure(uid types.UID) bool {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	if _, ok := t.failing[uid]; !ok {
		return false
	}
	delete(t.failing, uid)
	if len(t.failing) == 0 {
		t.lastError = ""
	}
	return true
}

// resetFailures forgets every failure, when the Target's generation changes.
func (t *targetState) resetFailures() {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	clear(t.failing)
	t.lastError = ""
}

func (t *targetState) failures() (int, string) {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	return len(t.failing), t.lastError
}

// failingUIDs lists the objects whose evaluation failed.
func (t *targetState) failingUIDs() []types.UID {
	t.statsMu.Lock()
	defer t.statsMu.Unlock()
	out := make([]types.UID, 0, len(t.failing))
	for uid := range t.failing {
		out = append(out, uid)
	}
	return out
}
