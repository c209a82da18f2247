package reconcile

import (
	"context"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/reports"
)

// ReplayReconciler compiles KollectReplays into replay requests for the
// aggregator and folds its progress reports into their status.
type ReplayReconciler struct {
	*Deps
}

// Reconcile runs the steps: a finished replay only keeps its status;
// otherwise resolve the inventory and the binding, wait for a slot of the
// namespace's quota of replays in flight (Pending, QuotaExceeded, no
// request), write the request, fold the aggregator's report. Once a terminal phase is in the object's stored
// status, the request is deleted from the config bucket, so that no
// aggregator, however late it restarts, finds it again (docs/replay.md,
// "A finished replay never runs again").
func (r *ReplayReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	key := ref(busv1.KindReplay, req.Namespace, req.Name)
	var rr busv1.ReplayRequest
	var wait string // why the replay waits for a slot of its namespace's quota
	obj := &v1alpha1.KollectReplay{}
	res, err := run(ctx, r.Deps, req, obj, entry[*v1alpha1.KollectReplay]{ref: &key},
		func(ctx context.Context, obj *v1alpha1.KollectReplay, _ *ctrl.Result) (err error) {
			if finished(obj) {
				return nil
			}
			if err := r.mayReplay(ctx, obj); err != nil {
				return err
			}
			if rr, err = r.compile(ctx, obj); err != nil {
				return err
			}
			wait, err = r.replaySlot(ctx, obj)
			return err
		},
		func(ctx context.Context, obj *v1alpha1.KollectReplay, _ *ctrl.Result) error {
			switch {
			case finished(obj):
				return nil
			case wait != "":
				return r.deleteConfig(ctx, key)
			}
			return r.putConfig(ctx, key, rr)
		},
		func(_ context.Context, obj *v1alpha1.KollectReplay, _ *ctrl.Result) error {
			if wait != "" {
				obj.Status.Phase = v1alpha1.ReplayPending
				set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonQuotaExceeded, wait)
				return nil
			}
			foldReplay(obj, r.Reports)
			return nil
		})
	// Only after the status patch succeeded (err is nil): deleting the
	// request first and then failing to store the phase would leave a
	// replay that is not finished in status and compiled again, with its
	// report possibly expired. A crash between the two leaves a finished
	// status and the key, which the next reconcile (every object is
	// reconciled at start) deletes here.
	if err == nil && finished(obj) && obj.GetDeletionTimestamp() == nil {
		err = r.deleteConfig(ctx, key)
	}
	return res, err
}

// finished reports whether the replay succeeded or failed: its request is
// not written again, and deleted, so a replay never runs twice.
func finished(obj *v1alpha1.KollectReplay) bool {
	return obj.Status.Phase == v1alpha1.ReplaySucceeded || obj.Status.Phase == v1alpha1.ReplayFailed
}

// compile resolves the inventory and checks it binds spec.sink. A replay of
// a KollectClusterInventory may deliver only to a sink of its own
// namespace: whoever may create replays in a namespace can fill that
// namespace's sinks, never another's.
func (r *ReplayReconciler) compile(ctx context.Context, obj *v1alpha1.KollectReplay) (busv1.ReplayRequest, error) {
	spec := obj.Spec
	out := busv1.ReplayRequest{Namespace: obj.Namespace, Name: obj.Name, UID: string(obj.UID), Generation: obj.Generation,
		RequestedAt: obj.CreationTimestamp.UTC()}
	ci, ni := &v1alpha1.KollectClusterInventory{}, &v1alpha1.KollectInventory{}
	var inv client.Object = ni
	out.InventoryKind, out.Inventory = busv1.KindInventory, busv1.NamespacedName{Namespace: obj.Namespace, Name: spec.InventoryRef.Name}
	if spec.InventoryRef.Kind == string(busv1.KindClusterInventory) {
		inv, out.InventoryKind, out.Inventory = ci, busv1.KindClusterInventory, busv1.NamespacedName{Name: spec.InventoryRef.Name}
	}
	if err := r.Client.Get(ctx, client.ObjectKey{Namespace: out.Inventory.Namespace, Name: out.Inventory.Name}, inv); err != nil {
		if apierrors.IsNotFound(err) {
			return out, v1alpha1.Reasonf(v1alpha1.ReasonInventoryNotFound, "spec.inventoryRef: %s %s not found", out.InventoryKind, spec.InventoryRef.Name)
		}
		return out, fmt.Errorf("get %s %s: %w", out.InventoryKind, spec.InventoryRef.Name, err)
	}
	ws := inventoryWants(ni)
	if out.InventoryKind == busv1.KindClusterInventory {
		ws = clusterWants(ci)
	}
	for _, w := range ws {
		if w.name != spec.Sink {
			continue
		}
		if out.InventoryKind == busv1.KindClusterInventory && w.sink.Namespace != obj.Namespace {
			return out, v1alpha1.Reasonf(v1alpha1.ReasonForbidden,
				"spec.sink: a replay in namespace %s may deliver a cluster inventory only to sinks of namespace %s, not %s",
				obj.Namespace, obj.Namespace, w.sink.Namespace)
		}
		out.Sink = w.sink
	}
	if out.Sink.Name == "" {
		return out, v1alpha1.Reasonf(v1alpha1.ReasonSinkNotFound, "spec.sink: %s %s does not bind %s", out.InventoryKind, spec.InventoryRef.Name, spec.Sink)
	}
	if spec.Revision != nil {
		out.Revision = uint64(max(*spec.Revision, 0))
	}
	if spec.At != nil {
		out.At = spec.At.UTC()
	}
	if b := spec.Backfill; b != nil {
		out.Backfill = true
		if b.FromRevision != nil {
			out.FromRevision = uint64(max(*b.FromRevision, 0))
		}
		if b.ToRevision != nil {
			out.ToRevision = uint64(max(*b.ToRevision, 0))
		}
	}
	return out, nil
}

// foldReplay copies the aggregator's latest report on this replay (of this
// object, by UID) into status and sets Ready from the phase. A finished
// status is final: it is never folded again.
func foldReplay(obj *v1alpha1.KollectReplay, rep Reporter) {
	if finished(obj) {
		return // terminal: a later or missing report changes nothing
	}
	var st *busv1.ReplayStatus
	for _, r := range rep.Reports(reports.ObjectKey{Kind: busv1.KindReplay, Namespace: obj.Namespace, Name: obj.Name}) {
		if r.Service == busv1.ServiceAggregator && r.Replay != nil && r.Replay.UID == string(obj.UID) {
			st = r.Replay
		}
	}
	s := &obj.Status
	if st == nil {
		s.Phase = v1alpha1.ReplayPending
		set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing, "waiting for the aggregator")
		return
	}
	s.Phase = v1alpha1.ReplayPhase(st.Phase)
	s.RevisionsTotal, s.RevisionsDone, s.LastRevision = int64(st.RevisionsTotal), int64(st.RevisionsDone), int64(min(st.LastRevision, 1<<62))
	if !st.StartedAt.IsZero() {
		s.StartTime = &metav1.Time{Time: st.StartedAt}
	}
	if !st.FinishedAt.IsZero() {
		s.CompletionTime = &metav1.Time{Time: st.FinishedAt}
	}
	s.LastError = ""
	switch st.Phase {
	case busv1.ReplaySucceeded:
		ready(obj, fmt.Sprintf("delivered %d of %d revisions to %s", st.RevisionsDone, st.RevisionsTotal, obj.Spec.Sink))
	case busv1.ReplayFailed:
		s.LastError = oneLine(st.Message)
		notReady(obj, firstNonEmpty(st.Reason, v1alpha1.ReasonReplayFailed), oneLine(st.Message))
	case busv1.ReplayPending:
		// Queued for a slot, or pausing after an interrupted run: the
		// message says which.
		set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing,
			oneLine(firstNonEmpty(st.Message, "waiting for the aggregator")))
	default:
		set(obj, v1alpha1.ConditionReady, metav1.ConditionUnknown, v1alpha1.ReasonProgressing,
			fmt.Sprintf("delivered %d of %d revisions to %s", st.RevisionsDone, st.RevisionsTotal, obj.Spec.Sink))
	}
}
