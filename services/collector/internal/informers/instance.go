package informers

import (
	"context"
	"fmt"
	"sync"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/tools/cache"

	"kollect.dev/kollect/api/v1alpha1"
)

// AsUnstructured returns an object of a cache as the pruned object the
// Targets read.
func AsUnstructured(cached any) (*unstructured.Unstructured, error) {
	switch o := cached.(type) {
	case *Object:
		return o.Unstructured()
	case *unstructured.Unstructured:
		return o, nil
	}
	return nil, fmt.Errorf("cached object %T is not a Kubernetes object", cached)
}

func objectMeta(obj any) (metav1.Object, error) {
	if t, ok := obj.(cache.DeletedFinalStateUnknown); ok {
		obj = t.Obj
	}
	o, ok := obj.(metav1.Object)
	if !ok {
		return nil, fmt.Errorf("cached object %T has no metadata", obj)
	}
	return o, nil
}

// informerSpec is what an informer lists: a GVR, in one namespace or all,
// the objects the selectors match.
type informerSpec struct {
	gvk           schema.GroupVersionKind
	gvr           schema.GroupVersionResource
	namespaced    bool
	namespace     string // "" for all namespaces
	labelSelector string // "" for every object
	fieldSelector string // "" for every object
}

// instance is one running informer of one GVK.
type instance struct {
	spec   informerSpec
	req    Requirement
	inf    cache.SharedIndexInformer
	cancel context.CancelFunc

	mu        sync.Mutex
	forbidden error
}

// start creates and runs the informer of spec, which lists and watches
// through ri; m.mu is held.
func (m *Manager) start(ctx context.Context, spec informerSpec, req Requirement, ri *resourceClient) *instance {
	ictx, cancel := context.WithCancel(ctx)
	inst := &instance{spec: spec, req: req, cancel: cancel}
	lw := &cache.ListWatch{
		ListWithContextFunc: func(ctx context.Context, o metav1.ListOptions) (runtime.Object, error) {
			o.LabelSelector, o.FieldSelector = spec.labelSelector, spec.fieldSelector
			l, err := ri.List(ctx, o)
			m.observe(inst, err)
			return l, err
		},
		WatchFuncWithContext: func(ctx context.Context, o metav1.ListOptions) (watch.Interface, error) {
			o.LabelSelector, o.FieldSelector = spec.labelSelector, spec.fieldSelector
			w, err := ri.Watch(ctx, o)
			m.observe(inst, err)
			return w, err
		},
	}
	inst.inf = cache.NewSharedIndexInformerWithOptions(cache.ToListWatcherWithWatchListSemantics(lw, ri),
		&Object{}, cache.SharedIndexInformerOptions{
			Indexers:          cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc},
			ObjectDescription: spec.gvr.String(),
		})
	// Neither call can fail on an informer that has not started.
	_ = inst.inf.SetTransform(req.transform())
	_ = inst.inf.SetWatchErrorHandlerWithContext(func(ctx context.Context, r *cache.Reflector, err error) {
		m.observe(inst, err)
		cache.DefaultWatchErrorHandler(ctx, r, err)
	})
	_, _ = inst.inf.AddEventHandler(m.objectHandler(spec.gvk))
	go inst.inf.RunWithContext(ictx)
	go func() {
		if cache.WaitForCacheSync(ictx.Done(), inst.inf.HasSynced) {
			m.handler.Synced(spec.gvk)
		}
	}()
	return inst
}

// observe records the outcome of a list or watch: Forbidden marks the GVK,
// any success clears it. Other errors are the reflector's to retry.
func (m *Manager) observe(inst *instance, err error) {
	if err != nil && !apierrors.IsForbidden(err) {
		return
	}
	inst.mu.Lock()
	changed := (inst.forbidden == nil) != (err == nil)
	inst.forbidden = err
	inst.mu.Unlock()
	if changed {
		m.handler.StateChanged(inst.spec.gvk)
	}
}

func (inst *instance) forbiddenState() State {
	inst.mu.Lock()
	defer inst.mu.Unlock()
	if inst.forbidden == nil {
		return State{}
	}
	where := "in every namespace"
	if inst.spec.namespace != "" {
		where = "in namespace " + inst.spec.namespace
	}
	return State{Reason: v1alpha1.ReasonForbidden, Message: fmt.Sprintf(
		"RBAC denies the collector list and watch of %s %s", inst.spec.gvr.GroupResource(), where)}
}

// objectHandler reports every add, update and delete. Updates that change
// nothing (a relist of an unchanged object) are dropped; an update that
// replaced the object (new uid under the same name) reports both.
func (m *Manager) objectHandler(gvk schema.GroupVersionKind) cache.ResourceEventHandler {
	report := func(obj any) {
		o, err := objectMeta(obj)
		if err != nil {
			return
		}
		m.handler.ObjectChanged(gvk, cache.MetaObjectToName(o).String(), o.GetUID())
	}
	return cache.ResourceEventHandlerFuncs{
		AddFunc: report,
		UpdateFunc: func(oldObj, newObj any) {
			o, err1 := objectMeta(oldObj)
			n, err2 := objectMeta(newObj)
			if err1 != nil || err2 != nil || (o.GetUID() == n.GetUID() && o.GetResourceVersion() == n.GetResourceVersion()) {
				return
			}
			if o.GetUID() != n.GetUID() {
				report(oldObj)
			}
			report(newObj)
		},
		DeleteFunc: report,
	}
}
