package reconcile

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/inventory"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/control/internal/policy"
)

// DefaultSinkNamespace is where a ClusterInventory's sinks live when neither
// the ref nor spec.sinkNamespace names a namespace.
const DefaultSinkNamespace = "kollect-system"

// ClusterInventoryReconciler compiles KollectClusterInventories: targets
// and namespaces resolved, sinks bound within the ClusterScope.
type ClusterInventoryReconciler struct {
	*Deps
}

// Reconcile runs the steps of InventoryReconciler plus resolving the
// ClusterTargets and namespaces the inventory rolls up.
func (r *ClusterInventoryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	key := ref(busv1.KindClusterInventory, "", req.Name)
	var c compiledInventory
	return run(ctx, r.Deps, req, &v1alpha1.KollectClusterInventory{},
		entry[*v1alpha1.KollectClusterInventory]{ref: &key, finalizer: true, suspended: func(o *v1alpha1.KollectClusterInventory) string {
			return suspended(o.Spec.Suspend, "exports are paused")
		}},
		func(ctx context.Context, obj *v1alpha1.KollectClusterInventory, _ *ctrl.Result) (err error) {
			c, err = r.compile(ctx, obj)
			return err
		},
		func(ctx context.Context, _ *v1alpha1.KollectClusterInventory, _ *ctrl.Result) error {
			return r.putConfig(ctx, key, c.cfg)
		},
		func(ctx context.Context, obj *v1alpha1.KollectClusterInventory, _ *ctrl.Result) error {
			readyInventory(obj, fmt.Sprintf("rolling up %d cluster targets to %d of %d sinks",
				len(c.cfg.TargetRefs), len(c.cfg.Bindings), len(c.states)), c)
			obj.Status.TargetCount = int64(len(c.cfg.TargetRefs))
			if agg := foldInventory(obj, busv1.KindClusterInventory, &obj.Status.InventoryStatus, c.states, r.Reports); agg != nil {
				obj.Status.NamespaceShards = namespaceShards(agg.NamespaceShards)
			}
			r.missingTargets(ctx, obj)
			r.announceRepairs(obj, busv1.KindClusterInventory)
			return nil
		})
}

// compile binds the sinks within the ClusterScope and resolves the
// ClusterTargets and namespaces rolled up.
func (r *ClusterInventoryReconciler) compile(ctx context.Context, obj *v1alpha1.KollectClusterInventory) (compiledInventory, error) {
	b, err := r.boundFor(ctx, "")
	if err != nil {
		return compiledInventory{}, err
	}
	c, err := r.compileInventory(ctx, busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: obj.Name, UID: string(obj.UID),
		Generation: obj.Generation, DeletionPolicy: busv1.DeletionRetain, RevisionFloor: revisionFloor(&obj.Status.InventoryStatus),
		History: policy.HistoryLimits(obj.Spec.History)},
		clusterWants(obj), b)
	if err != nil {
		return c, err
	}
	resolved, err := r.resolveTargets(ctx, obj)
	if err != nil {
		return c, err
	}
	c.cfg.TargetRefs, c.cfg.Namespaces, c.cfg.Dedupe = resolved.TargetRefs, resolved.Namespaces, resolved.Dedupe
	return c, nil
}

func (r *ClusterInventoryReconciler) resolveTargets(ctx context.Context, obj *v1alpha1.KollectClusterInventory) (inventory.Resolved, error) {
	var targets v1alpha1.KollectClusterTargetList
	if err := r.Client.List(ctx, &targets); err != nil {
		return inventory.Resolved{}, fmt.Errorf("list cluster targets: %w", err)
	}
	metas := make([]metav1.ObjectMeta, 0, len(targets.Items))
	for _, t := range targets.Items {
		metas = append(metas, t.ObjectMeta)
	}
	var nsList corev1.NamespaceList
	if err := r.Client.List(ctx, &nsList); err != nil {
		return inventory.Resolved{}, fmt.Errorf("list namespaces: %w", err)
	}
	nss := make([]selection.Namespace, 0, len(nsList.Items))
	for _, n := range nsList.Items {
		nss = append(nss, selection.Namespace{Name: n.Name, Labels: n.Labels, Annotations: n.Annotations})
	}
	resolved, err := inventory.ResolveCluster(obj.Spec, metas, nss)
	if err != nil {
		// An invalid spec is reported as a condition, not retried.
		return resolved, &v1alpha1.ReasonError{Reason: v1alpha1.ReasonInvalidSpec, Err: err}
	}
	return resolved, nil
}

// missingTargets degrades the inventory when a targetRef names no
// ClusterTarget (unless a binding already degraded it).
func (r *ClusterInventoryReconciler) missingTargets(ctx context.Context, obj *v1alpha1.KollectClusterInventory) {
	for _, name := range obj.Spec.TargetRefs {
		var t v1alpha1.KollectClusterTarget
		if err := r.Client.Get(ctx, client.ObjectKey{Name: name}, &t); apierrors.IsNotFound(err) {
			degraded(obj, v1alpha1.ReasonTargetNotFound, fmt.Sprintf("spec.targetRefs: KollectClusterTarget %s not found", name))
			return
		}
	}
}

func clusterWants(obj *v1alpha1.KollectClusterInventory) []wanted {
	sinkNS := obj.Spec.SinkNamespace
	if sinkNS == "" {
		sinkNS = DefaultSinkNamespace
	}
	lists := map[busv1.Family][]v1alpha1.ClusterSinkBinding{
		busv1.FamilySnapshot: obj.Spec.SnapshotSinkRefs,
		busv1.FamilyDatabase: obj.Spec.DatabaseSinkRefs,
		busv1.FamilyEvent:    obj.Spec.EventSinkRefs,
	}
	var out []wanted
	for _, f := range busv1.Families() {
		for _, b := range lists[f] {
			ns := b.Namespace
			if ns == "" {
				ns = sinkNS
			}
			s := busv1.SinkRef{Family: f, Namespace: ns, Name: b.Name}
			out = append(out, wanted{sink: s, name: string(f) + "/" + ns + "/" + b.Name, interval: b.ExportMinInterval,
				maxBytes: b.MaxExportBytes, invDefault: obj.Spec.ExportMinInterval})
		}
	}
	return out
}

// namespaceShards copies the aggregator's per-namespace shards into status.
// Cluster-scoped objects, which have no namespace, are not a shard of status:
// the list is keyed by namespace.
func namespaceShards(in []busv1.NamespaceShard) []v1alpha1.NamespaceShard {
	var out []v1alpha1.NamespaceShard
	for _, s := range in {
		if s.Namespace != "" {
			out = append(out, v1alpha1.NamespaceShard{Namespace: s.Namespace, ItemCount: int64(s.ItemCount), Checksum: s.Checksum})
		}
	}
	return out
}
