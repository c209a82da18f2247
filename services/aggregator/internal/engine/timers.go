package engine

import (
	"container/heap"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// timers holds one wake-up time per inventory, earliest first, so that a
// turn of the loop looks at the earliest only and a change reschedules one
// inventory: O(log n), not a scan of every inventory.
type timers struct {
	heap  timerHeap
	index map[busv1.NamespacedName]*timer
}

type timer struct {
	name busv1.NamespacedName
	at   time.Time
	i    int // position in the heap
}

func newTimers() *timers { return &timers{index: map[busv1.NamespacedName]*timer{}} }

// set schedules name at at, replacing its earlier time.
func (t *timers) set(name busv1.NamespacedName, at time.Time) {
	if tm, ok := t.index[name]; ok {
		tm.at = at
		heap.Fix(&t.heap, tm.i)
		return
	}
	tm := &timer{name: name, at: at}
	t.index[name] = tm
	heap.Push(&t.heap, tm)
}

// remove unschedules name.
func (t *timers) remove(name busv1.NamespacedName) {
	if tm, ok := t.index[name]; ok {
		heap.Remove(&t.heap, tm.i)
		delete(t.index, name)
	}
}

// next returns the earliest time scheduled.
func (t *timers) next() (time.Time, bool) {
	if len(t.heap) == 0 {
		return time.Time{}, false
	}
	return t.heap[0].at, true
}

// due unschedules and returns every inventory whose time is not after now,
// in fair order across namespaces (fairOrder).
func (t *timers) due(now time.Time) []busv1.NamespacedName {
	var out []busv1.NamespacedName
	for len(t.heap) > 0 && !t.heap[0].at.After(now) {
		tm := heap.Pop(&t.heap).(*timer)
		delete(t.index, tm.name)
		out = append(out, tm.name)
	}
	return fairOrder(out)
}

// fairOrder interleaves names, earliest first, round-robin across their
// namespaces: one inventory of each namespace that has one due, in the order
// the namespaces first come, then the next of each. A namespace with a
// hundred inventories due delays another namespace's one by one turn, not a
// hundred (cluster inventories count as one namespace).
func fairOrder(names []busv1.NamespacedName) []busv1.NamespacedName {
	if len(names) < 3 {
		return names
	}
	var order []string
	queues := map[string][]busv1.NamespacedName{}
	for _, n := range names {
		if _, ok := queues[n.Namespace]; !ok {
			order = append(order, n.Namespace)
		}
		queues[n.Namespace] = append(queues[n.Namespace], n)
	}
	if len(order) == 1 {
		return names
	}
	out := make([]busv1.NamespacedName, 0, len(names))
	for len(out) < len(names) {
		for _, ns := range order {
			if q := queues[ns]; len(q) > 0 {
				out, queues[ns] = append(out, q[0]), q[1:]
			}
		}
	}
	return out
}

// timerHeap is a container/heap of timers by time.
type timerHeap []*timer

func (h timerHeap) Len() int           { return len(h) }
func (h timerHeap) Less(i, j int) bool { return h[i].at.Before(h[j].at) }
func (h timerHeap) Swap(i, j int) {
	h[i], h[j] = h[j], h[i]
	h[i].i, h[j].i = i, j
}

func (h *timerHeap) Push(x any) {
	tm := x.(*timer)
	tm.i = len(*h)
	*h = append(*h, tm)
}

func (h *timerHeap) Pop() any {
	old := *h
	tm := old[len(old)-1]
	old[len(old)-1] = nil
	*h = old[:len(old)-1]
	return tm
}
