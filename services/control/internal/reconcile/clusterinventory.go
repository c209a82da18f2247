package reconcile

import (
	"context"
	"errors"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"

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
func (r *ClusterInventoryReconciler) Reconcile(ctx context.Context, req ctrl.Request) (res ctrl.Result, err error) {
	key := ref(busv1.KindClusterInventory, "", req.Name)
	obj := &v1alpha1.KollectClusterInventory{}
	if ok, err := r.admit(ctx, req.NamespacedName, obj, key); !ok {
		return res, err
	}
	before := obj.DeepCopy()
	defer func() { err = errors.Join(err, r.finish(ctx, before, obj)) }()
	if obj.Spec.Suspend {
		notReady(obj, v1alpha1.ReasonSuspended, "spec.suspend is true; exports are paused")
		return res, r.suspendConfig(ctx, key, obj.Generation)
	}
	cfg, states, reason, msg, err := r.compile(ctx, obj)
	if err != nil {
		return res, err
	}
	if reason != "" {
		notReady(obj, reason, msg)
		return res, r.deleteConfig(ctx, key)
	}
	if err := r.putConfig(ctx, key, cfg); err != nil {
		return res, err
	}
	ready(obj, fmt.Sprintf("rolling up %d cluster targets to %d of %d sinks", len(cfg.TargetRefs), len(cfg.Bindings), len(states)))
	obj.Status.TargetCount = int64(len(cfg.TargetRefs))
	if agg := foldInventory(obj, busv1.KindClusterInventory, &obj.Status.InventoryStatus, states, r.Reports); agg != nil {
		obj.Status.NamespaceShards = namespaceShards(agg.NamespaceShards)
	}
	r.missingTargets(ctx, obj)
	r.announceRepairs(obj, busv1.KindClusterInventory)
	return res, nil
}

func (r *ClusterInventoryReconciler) compile(ctx context.Context, obj *v1alpha1.KollectClusterInventory) (busv1.InventoryConfig, []bindingState, string, string, error) {
	cfg := busv1.InventoryConfig{Kind: busv1.KindClusterInventory, Name: obj.Name, UID: string(obj.UID),
		Generation: obj.Generation, DeletionPolicy: busv1.DeletionRetain, RevisionFloor: revisionFloor(&obj.Status.InventoryStatus)}
	scope, err := r.HonouredCluster(ctx)
	if err != nil {
		return cfg, nil, "", "", err
	}
	var rules *v1alpha1.ScopeRules
	scopeName := ""
	ws := clusterWants(obj)
	if scope != nil {
		rules, scopeName = &scope.Spec.ScopeRules, "KollectClusterScope "+scope.Name
		for _, w := range ws {
			if a := scope.Spec.AllowedStaticRefNamespaces; a != nil && !slices.Contains(a, w.sink.Namespace) {
				return cfg, nil, v1alpha1.ReasonScopeStaticRefDenied, fmt.Sprintf(
					"sink %s: %s does not allow references to namespace %s", w.name, scopeName, w.sink.Namespace), nil
			}
		}
	}
	resolved, err := r.resolveTargets(ctx, obj)
	if err != nil {
		return cfg, nil, v1alpha1.ReasonInvalidSpec, err.Error(), nil //nolint:nilerr // an invalid spec is reported as a condition, not retried
	}
	cfg.TargetRefs, cfg.Namespaces, cfg.Dedupe = resolved.TargetRefs, resolved.Namespaces, resolved.Dedupe
	binds, states, err := r.resolveBindings(ctx, ws, rules, scopeName)
	if err != nil {
		return cfg, nil, "", "", err
	}
	cfg.Bindings, cfg.MinExportInterval = sortBindings(binds), busv1.Duration{Duration: policy.Floor(rules)}
	return cfg, states, "", "", nil
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
	return inventory.ResolveCluster(obj.Spec, metas, nss)
}

// missingTargets degrades the inventory when a targetRef names no
// ClusterTarget (unless a binding already degraded it).
func (r *ClusterInventoryReconciler) missingTargets(ctx context.Context, obj *v1alpha1.KollectClusterInventory) {
	for _, name := range obj.Spec.TargetRefs {
		var t v1alpha1.KollectClusterTarget
		if err := r.Client.Get(ctx, ctrlKey("", name), &t); apierrors.IsNotFound(err) {
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
