package reconcile

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/client-go/util/workqueue"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/builder"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/predicate"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
	"sigs.k8s.io/controller-runtime/pkg/source"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/extract"
)

// Events names the objects that got a new status report; reports.Store
// implements it.
type Events interface {
	Events(kind busv1.Kind) <-chan event.GenericEvent
}

// Setup registers the field indexes and every reconciler with mgr.
func Setup(ctx context.Context, mgr ctrl.Manager, d *Deps, ev Events, opts extract.Options) error {
	if err := indexes(ctx, mgr, d); err != nil {
		return err
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectProfile{}).Complete(&ProfileReconciler{Deps: d, Extract: opts}); err != nil {
		return fmt.Errorf("set up the profile controller: %w", err)
	}
	if err := setupTargets(mgr, d, ev, opts); err != nil {
		return fmt.Errorf("set up the target controllers: %w", err)
	}
	if err := setupInventories(mgr, d, ev); err != nil {
		return fmt.Errorf("set up the inventory controllers: %w", err)
	}
	if err := setupScopes(mgr, d); err != nil {
		return fmt.Errorf("set up the scope controllers: %w", err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectConnectionTest{}).Complete(&ConnectionTestReconciler{Deps: d}); err != nil {
		return fmt.Errorf("set up the connection test controller: %w", err)
	}
	c := mgr.GetClient()
	// A replay waiting for a slot starts when another of its namespace
	// finishes or goes, or its Scope's maxReplays changes.
	if err := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectReplay{}).
		Watches(&v1alpha1.KollectReplay{}, mapList(c, &v1alpha1.KollectReplayList{}, "", inNamespace), builder.WithPredicates(replaySlotFreed)).
		Watches(&v1alpha1.KollectScope{}, mapList(c, &v1alpha1.KollectReplayList{}, "", inNamespace)).
		WatchesRawSource(channel(ev, busv1.KindReplay)).Complete(&ReplayReconciler{Deps: d}); err != nil {
		return fmt.Errorf("set up the replay controller: %w", err)
	}
	for _, f := range busv1.Families() {
		err := ctrl.NewControllerManagedBy(mgr).For(newSink(f)).
			WatchesRawSource(channel(ev, f.SinkKind())).
			Complete(&SinkReconciler{Deps: d, Family: f})
		if err != nil {
			return fmt.Errorf("set up the %s sink controller: %w", f, err)
		}
	}
	return nil
}

func channel(ev Events, kind busv1.Kind) source.Source {
	return source.Channel(ev.Events(kind), handler.Funcs{
		GenericFunc: func(_ context.Context, e event.GenericEvent, q workqueue.TypedRateLimitingInterface[reconcile.Request]) {
			q.AddAfter(reconcile.Request{NamespacedName: client.ObjectKeyFromObject(e.Object)}, ReportCoalesce)
		},
	})
}

// ReportCoalesce is how long a status report waits before it is folded into
// its object's status: the reports of one revision (the aggregator's and
// every binding's) and of a burst of revisions become one status write, so a
// busy inventory costs the API server at most one update per this period.
const ReportCoalesce = time.Second

// TargetConcurrency is how many Targets control reconciles at once: their
// access reviews wait on the API server, not on control's CPU.
const TargetConcurrency = 8

func setupTargets(mgr ctrl.Manager, d *Deps, ev Events, opts extract.Options) error {
	c := mgr.GetClient()
	// A Target's access depends on the namespaces it selects and on RBAC:
	// a new namespace reviews every Target again (behind other work, at low
	// priority), a changed binding only the Targets whose ServiceAccount or
	// requester it names (roles edited in place are caught by the periodic
	// re-check, also at low priority), and so does a role, through the
	// bindings that refer to it. Reviews run TargetConcurrency at a time.
	err := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectTarget{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: TargetConcurrency}).
		Watches(&v1alpha1.KollectProfile{}, mapList(c, &v1alpha1.KollectTargetList{}, indexProfile, nsName)).
		Watches(&v1alpha1.KollectScope{}, mapList(c, &v1alpha1.KollectTargetList{}, "", inNamespace)).
		Watches(&corev1.Namespace{}, lowPriority(mapList(c, &v1alpha1.KollectTargetList{}, "", everything))).
		Watches(&rbacv1.RoleBinding{}, targetsOfBinding(c, d.AccessCache)).
		Watches(&rbacv1.ClusterRoleBinding{}, targetsOfBinding(c, d.AccessCache)).
		Watches(&rbacv1.Role{}, targetsOfRole(c, d.AccessCache)).
		Watches(&rbacv1.ClusterRole{}, targetsOfRole(c, d.AccessCache)).
		WatchesRawSource(channel(ev, busv1.KindTarget)).
		Complete(&TargetReconciler{Deps: d, Extract: opts})
	if err != nil {
		return err
	}
	// A new namespace may be one the selection reaches beyond the
	// ClusterScope (boundedByScope).
	return ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectClusterTarget{}).
		Watches(&v1alpha1.KollectProfile{}, mapList(c, &v1alpha1.KollectClusterTargetList{}, indexProfile, nsName)).
		Watches(&v1alpha1.KollectClusterScope{}, mapList(c, &v1alpha1.KollectClusterTargetList{}, "", everything)).
		Watches(&corev1.Namespace{}, mapList(c, &v1alpha1.KollectClusterTargetList{}, "", everything)).
		WatchesRawSource(channel(ev, busv1.KindClusterTarget)).
		Complete(&ClusterTargetReconciler{Deps: d, Extract: opts})
}

func setupInventories(mgr ctrl.Manager, d *Deps, ev Events) error {
	c := mgr.GetClient()
	// The namespace's quotas rank its inventories: one going, or changing
	// its bindings, may let a refused one run (or refuse a newer one).
	b := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectInventory{}).
		Watches(&v1alpha1.KollectScope{}, mapList(c, &v1alpha1.KollectInventoryList{}, "", inNamespace)).
		Watches(&v1alpha1.KollectInventory{}, mapList(c, &v1alpha1.KollectInventoryList{}, "", inNamespace), builder.WithPredicates(quotaUsageChanged)).
		WatchesRawSource(channel(ev, busv1.KindInventory))
	cb := ctrl.NewControllerManagedBy(mgr).For(&v1alpha1.KollectClusterInventory{}).
		Watches(&v1alpha1.KollectClusterScope{}, mapList(c, &v1alpha1.KollectClusterInventoryList{}, "", everything)).
		Watches(&v1alpha1.KollectClusterTarget{}, mapList(c, &v1alpha1.KollectClusterInventoryList{}, "", everything)).
		Watches(&corev1.Namespace{}, mapList(c, &v1alpha1.KollectClusterInventoryList{}, "", everything)).
		WatchesRawSource(channel(ev, busv1.KindClusterInventory))
	for _, f := range busv1.Families() {
		b = b.Watches(newSink(f), mapList(c, &v1alpha1.KollectInventoryList{}, indexSink, sinkKey(f)))
		cb = cb.Watches(newSink(f), mapList(c, &v1alpha1.KollectClusterInventoryList{}, indexSink, sinkKey(f)))
	}
	if err := b.Complete(&InventoryReconciler{Deps: d}); err != nil {
		return err
	}
	return cb.Complete(&ClusterInventoryReconciler{Deps: d})
}

func setupScopes(mgr ctrl.Manager, d *Deps) error {
	c := mgr.GetClient()
	err := ctrl.NewControllerManagedBy(mgr).Named("kollectscope").
		Watches(&v1alpha1.KollectScope{}, mapList(c, &v1alpha1.KollectScopeList{}, "", inNamespace)).
		Complete(&ScopeReconciler{Deps: d})
	if err != nil {
		return err
	}
	return ctrl.NewControllerManagedBy(mgr).Named("kollectclusterscope").
		Watches(&v1alpha1.KollectClusterScope{}, mapList(c, &v1alpha1.KollectClusterScopeList{}, "", everything)).
		Complete(&ClusterScopeReconciler{Deps: d})
}

// selectFn turns the changed object into list options for the objects
// that depend on it.
type selectFn func(changed client.Object, index string) []client.ListOption

func mapList(c client.Client, list client.ObjectList, index string, sel selectFn) handler.EventHandler {
	return handler.EnqueueRequestsFromMapFunc(func(ctx context.Context, o client.Object) []reconcile.Request {
		l := list.DeepCopyObject().(client.ObjectList)
		if err := c.List(ctx, l, sel(o, index)...); err != nil {
			ctrl.LoggerFrom(ctx).Error(err, "list dependents", "changed", client.ObjectKeyFromObject(o))
			return nil
		}
		var out []reconcile.Request
		forEach(l, func(m client.Object) {
			out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(m)})
		})
		return out
	})
}

func inNamespace(o client.Object, _ string) []client.ListOption {
	return []client.ListOption{client.InNamespace(o.GetNamespace())}
}

func everything(client.Object, string) []client.ListOption { return nil }

func nsName(o client.Object, index string) []client.ListOption {
	return []client.ListOption{client.MatchingFields{index: o.GetNamespace() + "/" + o.GetName()}}
}

func sinkKey(f busv1.Family) selectFn {
	return func(o client.Object, index string) []client.ListOption {
		return []client.ListOption{client.MatchingFields{index: string(f) + "/" + o.GetNamespace() + "/" + o.GetName()}}
	}
}

// quotaUsageChanged passes the events that change what an inventory counts
// against its namespace's quotas: it went, is going, or its spec (its
// bindings) changed. A new inventory is the newest: it changes no older
// one's rank.
var quotaUsageChanged = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	UpdateFunc: func(e event.UpdateEvent) bool {
		return e.ObjectOld.GetGeneration() != e.ObjectNew.GetGeneration() ||
			(e.ObjectOld.GetDeletionTimestamp() == nil) != (e.ObjectNew.GetDeletionTimestamp() == nil)
	},
}

// replaySlotFreed passes the events that free a slot of a namespace's
// quota of replays in flight: a replay went, is going, or finished.
var replaySlotFreed = predicate.Funcs{
	CreateFunc:  func(event.CreateEvent) bool { return false },
	GenericFunc: func(event.GenericEvent) bool { return false },
	DeleteFunc:  func(event.DeleteEvent) bool { return true },
	UpdateFunc: func(e event.UpdateEvent) bool {
		o, okOld := e.ObjectOld.(*v1alpha1.KollectReplay)
		n, okNew := e.ObjectNew.(*v1alpha1.KollectReplay)
		return okOld && okNew && (finished(o) != finished(n) || (o.DeletionTimestamp == nil) != (n.DeletionTimestamp == nil))
	},
}
