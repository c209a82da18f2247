package informers

import (
	"context"
	"fmt"
	"maps"
	"slices"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/app"
)

const minRetryInterval = 200 * time.Millisecond

// Run starts the Namespace and CRD informers and keeps one informer per
// desired GVK running until ctx is cancelled, reporting events to h.
func (m *Manager) Run(ctx context.Context, h Handler) error {
	m.handler = h
	go m.namespaces.RunWithContext(ctx)
	go m.crds.RunWithContext(ctx)
	retry := minRetryInterval
	for {
		pending := m.reconcile(ctx)
		var wait <-chan time.Time
		if pending {
			wait = time.After(retry)
			retry = min(2*retry, m.cfg.MaxRetryInterval)
		} else {
			retry = minRetryInterval
		}
		select {
		case <-ctx.Done():
			m.stopAll()
			return nil
		case <-m.kick:
		case <-wait:
			m.mu.Lock()
			m.resetMapper = true
			m.mu.Unlock()
		}
	}
}

// crdChanged is called on every CRD event: the kinds served may have
// changed, so discovery is read again and retries start over quickly.
// deletedGroup is the group of a deleted CRD, "" otherwise: for a while,
// its kinds that discovery stops serving are gone rather than unavailable.
func (m *Manager) crdChanged(deletedGroup string) {
	m.mu.Lock()
	m.resetMapper = true
	if deletedGroup != "" {
		m.deleted[deletedGroup] = time.Now().Add(goneWindow)
	}
	m.mu.Unlock()
	m.poke()
}

// goneWindow is how long after a CRD deletion discovery may lag before a
// kind it stops serving is no longer taken as deleted.
const goneWindow = time.Minute

// reconcile starts, restarts and stops informers to match the desired
// GVKs. It reports whether some GVK could not be resolved and should be
// retried.
func (m *Manager) reconcile(ctx context.Context) (pending bool) {
	m.mu.Lock()
	desired := maps.Clone(m.desired)
	reset := m.resetMapper
	m.resetMapper = false
	for gvk, k := range m.running {
		if _, ok := desired[gvk]; !ok {
			m.stop(gvk, k)
		}
	}
	now := time.Now()
	maps.DeleteFunc(m.deleted, func(_ string, until time.Time) bool { return now.After(until) })
	deleted := maps.Clone(m.deleted)
	m.mu.Unlock()
	if reset {
		m.mapper.Reset()
	}
	for gvk, req := range desired {
		if !m.ensure(ctx, gvk, req, reset && !deleted[gvk.Group].IsZero()) {
			pending = true
		}
	}
	// Discovery may still serve a deleted CRD's kinds for a moment: look
	// again until the window closes.
	return pending || len(deleted) > 0
}

// ensure makes the informer of gvk match req; it reports false when gvk
// cannot be resolved now. mayBeGone says that a CRD of gvk's group was just
// deleted: if discovery no longer serves gvk, its objects are gone.
func (m *Manager) ensure(ctx context.Context, gvk schema.GroupVersionKind, req Requirement, mayBeGone bool) bool {
	mapping, err := m.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		state := State{Reason: v1alpha1.ReasonProgressing,
			Message: fmt.Sprintf("discover %s: %v", GVKString(gvk), err)}
		gone := false
		if meta.IsNoMatchError(err) {
			state.Message = fmt.Sprintf("the API server does not serve %s; waiting for it (is its CRD installed?)", GVKString(gvk))
			gone = mayBeGone && m.stopIfRunning(gvk)
		}
		m.setState(gvk, state)
		if gone {
			m.cfg.Log.Info("kind no longer served; informer released", app.KeyGVK, GVKString(gvk))
			m.handler.Gone(gvk)
		}
		return false
	}
	m.setState(gvk, State{})
	base := informerSpec{gvk: gvk, gvr: mapping.Resource, namespaced: mapping.Scope.Name() == meta.RESTScopeNameNamespace,
		labelSelector: req.LabelSelector, fieldSelector: req.FieldSelector}
	if err := m.startParts(ctx, base, req); err != nil { // an invalid rest.Config: retried like discovery
		m.setState(gvk, State{Reason: v1alpha1.ReasonProgressing, Message: err.Error()})
		return false
	}
	return true
}

// startParts makes the informers of base.gvk hold req: one per namespace
// req names (partNamespaces), parts added and removed as they change, all
// restarted when the running ones do not cover req.
func (m *Manager) startParts(ctx context.Context, base informerSpec, req Requirement) error {
	gvk := base.gvk
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.desired[gvk]; !ok {
		return nil // removed meanwhile
	}
	k := m.running[gvk]
	restart := k != nil && (k.base != base || !k.req.Covers(req))
	if restart {
		m.stop(gvk, k)
	}
	if k == nil || restart {
		k = &kindInformers{base: base, req: req, parts: map[string]*instance{}}
		m.running[gvk] = k
	}
	defer k.rebuild()
	want := partNamespaces(base, req)
	for ns, p := range k.parts {
		if !slices.Contains(want, ns) {
			p.cancel()
			delete(k.parts, ns)
		}
	}
	for _, ns := range want {
		if k.parts[ns] != nil {
			continue
		}
		spec := base
		spec.namespace = ns
		ri, err := m.clients.forSpec(spec, k.req)
		if err != nil {
			return err
		}
		k.parts[ns] = m.start(ctx, spec, k.req, ri)
		m.cfg.Log.Info("informer started", app.KeyGVK, GVKString(gvk), app.KeyNamespace, ns,
			"labelSelector", spec.labelSelector, "fieldSelector", spec.fieldSelector, "wholeObject", k.req.Whole, "restart", restart)
	}
	return nil
}

func (m *Manager) stopIfRunning(gvk schema.GroupVersionKind) bool {
	m.mu.Lock()
	defer m.mu.Unlock()
	k, ok := m.running[gvk]
	if ok {
		m.stop(gvk, k)
	}
	return ok
}

// stop stops the informers of a kind; m.mu is held.
func (m *Manager) stop(gvk schema.GroupVersionKind, k *kindInformers) {
	for _, p := range k.parts {
		p.cancel()
	}
	delete(m.running, gvk)
}

func (m *Manager) stopAll() {
	m.mu.Lock()
	defer m.mu.Unlock()
	for gvk, k := range m.running {
		m.stop(gvk, k)
	}
}

func (m *Manager) setState(gvk schema.GroupVersionKind, s State) {
	m.mu.Lock()
	old := m.states[gvk]
	_, desired := m.desired[gvk]
	if s == (State{}) || !desired {
		delete(m.states, gvk)
	} else {
		m.states[gvk] = s
	}
	m.mu.Unlock()
	if old != s && desired {
		m.handler.StateChanged(gvk)
	}
}
