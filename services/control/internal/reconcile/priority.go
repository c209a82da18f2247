package reconcile

import (
	"context"

	"k8s.io/client-go/util/workqueue"
	"sigs.k8s.io/controller-runtime/pkg/controller/priorityqueue"
	"sigs.k8s.io/controller-runtime/pkg/event"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// lowPriority enqueues what h enqueues behind every normal-priority
// request: a namespace created or relabelled reviews many Targets again,
// and must not delay a Target whose binding was just revoked.
func lowPriority(h handler.EventHandler) handler.EventHandler { return lowHandler{h} }

type lowHandler struct{ h handler.EventHandler }

type queue = workqueue.TypedRateLimitingInterface[reconcile.Request]

func (l lowHandler) Create(ctx context.Context, e event.CreateEvent, q queue) {
	l.h.Create(ctx, e, low(q))
}

func (l lowHandler) Update(ctx context.Context, e event.UpdateEvent, q queue) {
	l.h.Update(ctx, e, low(q))
}

func (l lowHandler) Delete(ctx context.Context, e event.DeleteEvent, q queue) {
	l.h.Delete(ctx, e, low(q))
}

func (l lowHandler) Generic(ctx context.Context, e event.GenericEvent, q queue) {
	l.h.Generic(ctx, e, low(q))
}

// low wraps a priority queue so its Add is low priority; other queues are
// returned as they are.
func low(q queue) queue {
	pq, ok := q.(priorityqueue.PriorityQueue[reconcile.Request])
	if !ok {
		return q
	}
	return lowQueue{pq}
}

type lowQueue struct {
	priorityqueue.PriorityQueue[reconcile.Request]
}

func (q lowQueue) Add(r reconcile.Request) {
	q.AddWithOpts(priorityqueue.AddOpts{Priority: new(handler.LowPriority)}, r)
}
