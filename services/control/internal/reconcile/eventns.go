package reconcile

import (
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/events"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ReleaseRecorder files the Events of cluster-scoped objects
// (KollectClusterTarget, KollectClusterInventory, KollectClusterScope) in
// Namespace, the namespace control runs in, instead of client-go's
// default: "default", where anyone with view there would read platform
// sink names and export errors. Events of namespaced objects stay in their
// object's namespace.
type ReleaseRecorder struct {
	events.EventRecorder
	// Namespace is the release namespace.
	Namespace string
	// Scheme maps Go types to their group, version and kind.
	Scheme *runtime.Scheme
}

// Eventf records an event regarding regarding, in Namespace when regarding
// is cluster-scoped.
func (r ReleaseRecorder) Eventf(regarding, related runtime.Object, eventtype, reason, action, note string, args ...any) {
	if regarding = r.filed(regarding); regarding != nil {
		r.EventRecorder.Eventf(regarding, related, eventtype, reason, action, note, args...)
	}
}

// filed returns regarding, or for a cluster-scoped object a reference to
// it that carries Namespace (the events recorder files an Event in its
// reference's namespace, and the API server accepts a reference whose
// namespace is the Event's), or nil for a cluster-scoped object of unknown
// kind: its Event is dropped rather than filed in "default".
func (r ReleaseRecorder) filed(regarding runtime.Object) runtime.Object {
	obj, ok := regarding.(client.Object)
	if !ok || obj.GetNamespace() != "" {
		return regarding
	}
	gvk := obj.GetObjectKind().GroupVersionKind()
	if gvk.Empty() && r.Scheme != nil {
		if kinds, _, err := r.Scheme.ObjectKinds(obj); err == nil && len(kinds) > 0 {
			gvk = kinds[0]
		}
	}
	if gvk.Empty() || r.Namespace == "" {
		return nil
	}
	apiVersion, kind := gvk.ToAPIVersionAndKind()
	return &corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(), UID: obj.GetUID(),
		ResourceVersion: obj.GetResourceVersion(), Namespace: r.Namespace}
}
