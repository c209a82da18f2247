package engine

import (
	"context"
	"slices"
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/tools/cache"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/collector/internal/informers"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// memInformers is an in-memory Informers: an informer "runs" for a GVK
// while a Requirement is set for it, and its cache holds what the test
// added; a GVK is synced once the test says so.
type memInformers struct {
	mu         sync.Mutex
	objects    map[schema.GroupVersionKind][]*unstructured.Unstructured // what the cluster holds
	running    map[schema.GroupVersionKind]cache.Indexer
	synced     map[schema.GroupVersionKind]bool
	required   map[schema.GroupVersionKind]informers.Requirement
	namespaces []selection.Namespace
}

func newMemInformers(namespaces ...string) *memInformers {
	m := &memInformers{objects: map[schema.GroupVersionKind][]*unstructured.Unstructured{},
		running: map[schema.GroupVersionKind]cache.Indexer{}, synced: map[schema.GroupVersionKind]bool{},
		required: map[schema.GroupVersionKind]informers.Requirement{}}
	for _, ns := range namespaces {
		m.namespaces = append(m.namespaces, selection.Namespace{Name: ns})
	}
	return m
}

// add puts obj in the cluster and, when its informer runs, in its cache.
func (m *memInformers) add(gvk schema.GroupVersionKind, obj *unstructured.Unstructured) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[gvk] = append(m.objects[gvk], obj)
	if s := m.running[gvk]; s != nil {
		_ = s.Add(obj)
	}
}

// remove takes obj out of the cluster and the cache.
func (m *memInformers) remove(gvk schema.GroupVersionKind, obj *unstructured.Unstructured) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.objects[gvk] = slices.DeleteFunc(m.objects[gvk], func(o *unstructured.Unstructured) bool { return o == obj })
	if s := m.running[gvk]; s != nil {
		_ = s.Delete(obj)
	}
}

func (m *memInformers) sync(gvk schema.GroupVersionKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.synced[gvk] = true
}

func (m *memInformers) requirement(gvk schema.GroupVersionKind) (informers.Requirement, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.required[gvk]
	return r, ok
}

func (m *memInformers) Store(gvk schema.GroupVersionKind) (informers.Cache, bool, bool) {
	m.mu.Lock()
	defer m.mu.Unlock()
	s := m.running[gvk]
	return s, m.synced[gvk], s != nil
}

func (m *memInformers) Stores() map[schema.GroupVersionKind]informers.Cache {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := map[schema.GroupVersionKind]informers.Cache{}
	for gvk, s := range m.running {
		out[gvk] = s
	}
	return out
}

func (m *memInformers) Namespaced(gvk schema.GroupVersionKind) (bool, bool) {
	_, _, ok := m.Store(gvk)
	return true, ok
}

func (m *memInformers) Set(gvk schema.GroupVersionKind, req informers.Requirement) {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.required[gvk] = req
	if m.running[gvk] != nil {
		return
	}
	s := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, o := range m.objects[gvk] {
		_ = s.Add(o)
	}
	m.running[gvk] = s
}

func (m *memInformers) Remove(gvk schema.GroupVersionKind) {
	m.mu.Lock()
	defer m.mu.Unlock()
	delete(m.required, gvk)
	delete(m.running, gvk)
	delete(m.synced, gvk)
}

func (m *memInformers) State(schema.GroupVersionKind) informers.State { return informers.State{} }

func (m *memInformers) WaitForNamespaces(context.Context) bool { return true }

func (m *memInformers) Namespace(name string) (selection.Namespace, bool) {
	for _, ns := range m.namespaces {
		if ns.Name == name {
			return ns, true
		}
	}
	return selection.Namespace{Name: name}, false
}

func (m *memInformers) Namespaces() []selection.Namespace { return m.namespaces }

// memRows is an in-memory Rows that writes at once.
type memRows struct {
	mu   sync.Mutex
	rows map[busv1.RowKey]busv1.Row
}

func newMemRows() *memRows { return &memRows{rows: map[busv1.RowKey]busv1.Row{}} }

func (r *memRows) Put(_ context.Context, row busv1.Row, _ int64, _ []byte) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.rows[row.Key()] = row
	return true, nil
}

func (r *memRows) Delete(_ context.Context, key busv1.RowKey) (bool, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	_, ok := r.rows[key]
	delete(r.rows, key)
	return ok, nil
}

func (r *memRows) Keys(ns, name string) []busv1.RowKey {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []busv1.RowKey
	for k := range r.rows {
		if k.TargetNamespace == ns && k.TargetName == name {
			out = append(out, k)
		}
	}
	return out
}

func (r *memRows) Count(ns, name string) int { return len(r.Keys(ns, name)) }

func (r *memRows) Targets() []busv1.NamespacedName {
	r.mu.Lock()
	defer r.mu.Unlock()
	seen := map[busv1.NamespacedName]bool{}
	var out []busv1.NamespacedName
	for k := range r.rows {
		t := busv1.NamespacedName{Namespace: k.TargetNamespace, Name: k.TargetName}
		if !seen[t] {
			seen[t] = true
			out = append(out, t)
		}
	}
	return out
}

func (r *memRows) OnFailure(func(rowstore.Failure)) {}

func (r *memRows) Load(context.Context, []busv1.NamespacedName) error { return nil }

func (r *memRows) Forget([]busv1.NamespacedName) {}

func (r *memRows) Flush(context.Context) error { return nil }

// names returns the object names of a Target's rows, sorted.
func (r *memRows) names(ns, target string) []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	out := []string{}
	for k, row := range r.rows {
		if k.TargetNamespace == ns && k.TargetName == target {
			out = append(out, row.Name)
		}
	}
	slices.Sort(out)
	return out
}

// marks counts status marks.
type marks struct {
	mu sync.Mutex
	n  map[bus.ConfigRef]int
}

func (m *marks) Mark(ref bus.ConfigRef) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.n == nil {
		m.n = map[bus.ConfigRef]int{}
	}
	m.n[ref]++
}
