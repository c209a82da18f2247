package engine

import (
	"context"
	"fmt"
	"sort"

	"k8s.io/apimachinery/pkg/api/resource"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
)

// nsUsage is what one namespace's inventories keep on the bus, and its
// quota.
type nsUsage struct {
	bytes, revisions int64
	quota            busv1.NamespaceQuota
}

// over reports whether u exceeds its quota.
func (u nsUsage) over() bool {
	return u.quota.BusBytes > 0 && u.bytes > u.quota.BusBytes ||
		u.quota.HistoryRevisions > 0 && u.revisions > u.quota.HistoryRevisions
}

// subjectCut is one inventory's history while a namespace's quota is
// enforced: it keeps evs[cut:].
type subjectCut struct {
	subject string
	evs     []retained
	fp      []cost
	cut     int
}

// enforceQuotas trims, after each inventory's own retention, the histories
// of every namespace over its quota (namespaceQuota): the oldest events of
// the namespace go first, whichever inventory they belong to, until it fits;
// an inventory's newest event always stays. A namespace still over its quota
// then (its current snapshots alone exceed it) has every inventory report
// NamespaceQuotaExceeded, naming the usage and the limit; its snapshots are
// still published. Cluster inventories belong to no namespace and are not
// counted. It updates history in place and the usage metrics.
func (e *Engine) enforceQuotas(ctx context.Context, history map[string][]retained) error {
	byNS := map[string][]*subjectCut{}
	usage := map[string]nsUsage{}
	for subject, evs := range history {
		name, err := bus.ParseSnapshotSubject(subject)
		if err != nil || name.Namespace == "" || len(evs) == 0 {
			continue
		}
		fp, err := e.footprint(ctx, evs)
		if err != nil {
			return err
		}
		byNS[name.Namespace] = append(byNS[name.Namespace], &subjectCut{subject: subject, evs: evs, fp: fp})
		u := usage[name.Namespace]
		u.bytes, u.revisions = u.bytes+fp[0].bytes, u.revisions+fp[0].revisions
		usage[name.Namespace] = u
	}
	for ns, cuts := range byNS {
		u := usage[ns]
		u.quota = e.namespaceQuota(ns)
		if u.over() {
			sort.Slice(cuts, func(i, j int) bool { return cuts[i].subject < cuts[j].subject })
			u = shrink(cuts, u)
			for _, c := range cuts {
				if c.cut == 0 {
					continue
				}
				if err := e.purgeBefore(ctx, c.subject, c.evs[c.cut].seq); err != nil {
					return err
				}
				history[c.subject] = c.evs[c.cut:]
				e.opts.Log.V(1).Info("trimmed a snapshot history to its namespace's quota", app.KeySubject, c.subject, "events", c.cut)
			}
		}
		usage[ns] = u
		e.quotaOutcome(ns, u)
	}
	e.usageNS = e.m.namespaceUsage(e.usageNS, usage)
	return nil
}

// shrink drops the namespace's oldest events (never an inventory's newest)
// until u fits its quota or nothing more can go, and returns the usage
// left.
func shrink(cuts []*subjectCut, u nsUsage) nsUsage {
	for u.over() {
		var oldest *subjectCut
		for _, c := range cuts {
			if c.cut >= len(c.evs)-1 {
				continue
			}
			if oldest == nil || c.evs[c.cut].refs.CreatedAt.Before(oldest.evs[oldest.cut].refs.CreatedAt) {
				oldest = c
			}
		}
		if oldest == nil {
			return u
		}
		i := oldest.cut
		u.bytes -= oldest.fp[i].bytes - oldest.fp[i+1].bytes
		u.revisions -= oldest.fp[i].revisions - oldest.fp[i+1].revisions
		oldest.cut++
	}
	return u
}

// namespaceQuota is ns's quota: the operator's, each field lowered to the
// lowest non-zero one a config of the namespace carries (its Scope's).
func (e *Engine) namespaceQuota(ns string) busv1.NamespaceQuota {
	q := busv1.NamespaceQuota{BusBytes: e.opts.NamespaceBusBytes, HistoryRevisions: e.opts.NamespaceHistoryRevisions}
	lower := func(v *int64, c int64) {
		if c > 0 && (*v <= 0 || c < *v) {
			*v = c
		}
	}
	for name, st := range e.invs {
		if name.Namespace == ns && st.cfg != nil {
			lower(&q.BusBytes, st.cfg.NamespaceQuota.BusBytes)
			lower(&q.HistoryRevisions, st.cfg.NamespaceQuota.HistoryRevisions)
		}
	}
	return q
}

// quotaOutcome sets, on every inventory of ns, the outcome of the quota
// check, and reports those whose outcome changed.
func (e *Engine) quotaOutcome(ns string, u nsUsage) {
	var o busv1.Outcome
	if u.over() {
		o = busv1.Outcome{Reason: v1alpha1.ReasonNamespaceQuotaExceeded, Message: quotaMessage(ns, u)}
	}
	for name, st := range e.invs {
		if name.Namespace != ns || st.cfg == nil || st.quota == o {
			continue
		}
		st.quota = o
		if st.phase != loading && st.last.revision > 0 {
			e.report(st, e.clock.Now())
		}
	}
}

func quotaMessage(ns string, u nsUsage) string {
	size := func(n int64) string { return resource.NewQuantity(n, resource.BinarySI).String() }
	switch {
	case u.quota.BusBytes > 0 && u.bytes > u.quota.BusBytes:
		return fmt.Sprintf("namespace %s keeps %s on the bus with every history trimmed to its newest event, "+
			"above its quota of %s (--namespace-bus-bytes or its KollectScope's maxNamespaceBusBytes): "+
			"make its inventories smaller or ask for a larger quota", ns, size(u.bytes), size(u.quota.BusBytes))
	default:
		return fmt.Sprintf("namespace %s retains %d revisions with every history trimmed to its newest event, "+
			"above its quota of %d (--namespace-history-revisions or its KollectScope's maxNamespaceRevisions)",
			ns, u.revisions, u.quota.HistoryRevisions)
	}
}
