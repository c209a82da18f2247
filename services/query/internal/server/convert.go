package server

import (
	"fmt"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/services/query/internal/answer"
)

// revisionName is an InventoryRevision's name: "<inventory>.<revision>".
func revisionName(inventory string, revision uint64) string {
	return inventory + "." + strconv.FormatUint(revision, 10)
}

// parseRevisionName inverts revisionName; an inventory name may hold dots,
// a revision never does.
func parseRevisionName(name string) (string, uint64, error) {
	i := strings.LastIndexByte(name, '.')
	if i > 0 {
		if rev, err := strconv.ParseUint(name[i+1:], 10, 64); err == nil && rev > 0 {
			return name[:i], rev, nil
		}
	}
	return "", 0, fmt.Errorf("name %q: want <inventory>.<revision>", name)
}

// toRevision converts a counted revision.
func toRevision(inv busv1.NamespacedName, r *answer.Revision) queryv1.InventoryRevision {
	ev := &r.Entry
	t := metav1.NewTime(ev.Time)
	return queryv1.InventoryRevision{
		TypeMeta: metav1.TypeMeta{Kind: "InventoryRevision", APIVersion: queryv1.GroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Name: revisionName(inv.Name, ev.Revision), Namespace: inv.Namespace,
			CreationTimestamp: t, Labels: map[string]string{queryv1.LabelInventory: inv.Name}},
		Inventory: inv.Name, Revision: ev.Revision, Generation: ev.Generation, Time: t, Reason: string(ev.Reason),
		ItemCount: ev.ItemCount, Added: r.Added, Changed: r.Changed, Removed: r.Removed,
		Checksum: ev.Checksum, PreviousChecksum: ev.PreviousChecksum,
	}
}

// toHistory summarises revs.
func toHistory(inv busv1.NamespacedName, revs []answer.Revision) queryv1.InventoryHistory {
	first, last := &revs[0].Entry, &revs[len(revs)-1].Entry
	return queryv1.InventoryHistory{
		TypeMeta: metav1.TypeMeta{Kind: "InventoryHistory", APIVersion: queryv1.GroupVersion.String()},
		ObjectMeta: metav1.ObjectMeta{Name: inv.Name, Namespace: inv.Namespace,
			CreationTimestamp: metav1.NewTime(first.Time)},
		Revisions: len(revs),
		Oldest:    queryv1.RevisionRef{Revision: first.Revision, Time: metav1.NewTime(first.Time)},
		Latest:    queryv1.RevisionRef{Revision: last.Revision, Time: metav1.NewTime(last.Time)},
		ItemCount: last.ItemCount, Checksum: last.Checksum,
	}
}

// clusterRevision is r as a cluster inventory's revision.
func clusterRevision(r queryv1.InventoryRevision) *queryv1.ClusterInventoryRevision {
	r.Kind = "ClusterInventoryRevision"
	out := queryv1.ClusterInventoryRevision(r)
	return &out
}

// clusterRevisionList is l as a list of a cluster inventory's revisions.
func clusterRevisionList(l *queryv1.InventoryRevisionList) *queryv1.ClusterInventoryRevisionList {
	out := &queryv1.ClusterInventoryRevisionList{ListMeta: l.ListMeta, Items: make([]queryv1.ClusterInventoryRevision, len(l.Items))}
	for i := range l.Items {
		out.Items[i] = *clusterRevision(l.Items[i])
	}
	return out
}

// clusterHistory is h as a cluster inventory's history.
func clusterHistory(h queryv1.InventoryHistory) *queryv1.ClusterInventoryHistory {
	h.Kind = "ClusterInventoryHistory"
	out := queryv1.ClusterInventoryHistory(h)
	return &out
}

// clusterHistoryList is l as a list of cluster inventories' histories.
func clusterHistoryList(l *queryv1.InventoryHistoryList) *queryv1.ClusterInventoryHistoryList {
	out := &queryv1.ClusterInventoryHistoryList{ListMeta: l.ListMeta, Items: make([]queryv1.ClusterInventoryHistory, len(l.Items))}
	for i := range l.Items {
		out.Items[i] = *clusterHistory(l.Items[i])
	}
	return out
}
