package server

import (
	"context"
	"fmt"
	"strconv"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
)

var revisionColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "<inventory>.<revision>"},
	{Name: "Revision", Type: "integer", Description: "The revision."},
	{Name: "Time", Type: "string", Format: "date-time", Description: "When it was published."},
	{Name: "Reason", Type: "string", Description: "Why: change or deleted."},
	{Name: "Items", Type: "integer", Description: "Rows in the revision."},
	{Name: "Added", Type: "integer", Description: "Rows added since the previous revision."},
	{Name: "Changed", Type: "integer", Description: "Rows changed since the previous revision."},
	{Name: "Removed", Type: "integer", Description: "Rows removed since the previous revision."},
	{Name: "Checksum", Type: "string", Description: "The revision's checksum.", Priority: 1},
	{Name: "Previous", Type: "string", Description: "The previous revision's checksum.", Priority: 1},
}

var historyColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "The inventory."},
	{Name: "Revisions", Type: "integer", Description: "Revisions kept."},
	{Name: "Oldest", Type: "integer", Description: "The oldest revision kept."},
	{Name: "Latest", Type: "integer", Description: "The latest revision."},
	{Name: "Items", Type: "integer", Description: "Rows in the latest revision."},
	{Name: "Latest-Time", Type: "string", Format: "date-time", Description: "When the latest revision was published."},
	{Name: "Checksum", Type: "string", Description: "The latest revision's checksum.", Priority: 1},
}

// ConvertToTable is kubectl get's table of revisions.
func (s *revisionsREST) ConvertToTable(_ context.Context, obj, _ runtime.Object) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: revisionColumns}
	var items []queryv1.InventoryRevision
	switch o := obj.(type) {
	case *queryv1.InventoryRevision:
		items = []queryv1.InventoryRevision{*o}
	case *queryv1.InventoryRevisionList:
		items, t.Continue = o.Items, o.Continue
	case *queryv1.ClusterInventoryRevision:
		items = []queryv1.InventoryRevision{queryv1.InventoryRevision(*o)}
	case *queryv1.ClusterInventoryRevisionList:
		t.Continue = o.Continue
		for i := range o.Items {
			items = append(items, queryv1.InventoryRevision(o.Items[i]))
		}
	default:
		return nil, fmt.Errorf("convert %T to a table: not a revision", obj)
	}
	for i := range items {
		r := &items[i]
		t.Rows = append(t.Rows, metav1.TableRow{Object: runtime.RawExtension{Object: r}, Cells: []any{
			r.Name, strconv.FormatUint(r.Revision, 10), r.Time.UTC().Format("2006-01-02T15:04:05Z"), r.Reason,
			r.ItemCount, r.Added, r.Changed, r.Removed, r.Checksum, r.PreviousChecksum,
		}})
	}
	return t, nil
}

// ConvertToTable is kubectl get's table of histories.
func (s *historiesREST) ConvertToTable(_ context.Context, obj, _ runtime.Object) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: historyColumns}
	var items []queryv1.InventoryHistory
	switch o := obj.(type) {
	case *queryv1.InventoryHistory:
		items = []queryv1.InventoryHistory{*o}
	case *queryv1.InventoryHistoryList:
		items, t.Continue = o.Items, o.Continue
	case *queryv1.ClusterInventoryHistory:
		items = []queryv1.InventoryHistory{queryv1.InventoryHistory(*o)}
	case *queryv1.ClusterInventoryHistoryList:
		t.Continue = o.Continue
		for i := range o.Items {
			items = append(items, queryv1.InventoryHistory(o.Items[i]))
		}
	default:
		return nil, fmt.Errorf("convert %T to a table: not a history", obj)
	}
	for i := range items {
		h := &items[i]
		t.Rows = append(t.Rows, metav1.TableRow{Object: runtime.RawExtension{Object: h}, Cells: []any{
			h.Name, h.Revisions, strconv.FormatUint(h.Oldest.Revision, 10), strconv.FormatUint(h.Latest.Revision, 10),
			h.ItemCount, h.Latest.Time.UTC().Format("2006-01-02T15:04:05Z"), h.Checksum,
		}})
	}
	return t, nil
}

var deadLetterColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: "The dead letter's sequence."},
	{Name: "Time", Type: "string", Format: "date-time", Description: "When the exporter gave up."},
	{Name: "Inventory", Type: "string", Description: "The inventory."},
	{Name: "Sink", Type: "string", Description: "The binding whose delivery failed."},
	{Name: "Revision", Type: "integer", Description: "The revision that failed."},
	{Name: "Reason", Type: "string", Description: "Why."},
	{Name: "Message", Type: "string", Description: "The failure.", Priority: 1},
}

// ConvertToTable is kubectl get's table of dead letters.
func (s *deadLettersREST) ConvertToTable(_ context.Context, obj, _ runtime.Object) (*metav1.Table, error) {
	t := &metav1.Table{ColumnDefinitions: deadLetterColumns}
	var items []queryv1.DeadLetter
	switch o := obj.(type) {
	case *queryv1.DeadLetter:
		items = []queryv1.DeadLetter{*o}
	case *queryv1.DeadLetterList:
		items, t.Continue = o.Items, o.Continue
	case *queryv1.ClusterDeadLetter:
		items = []queryv1.DeadLetter{queryv1.DeadLetter(*o)}
	case *queryv1.ClusterDeadLetterList:
		t.Continue = o.Continue
		for i := range o.Items {
			items = append(items, queryv1.DeadLetter(o.Items[i]))
		}
	default:
		return nil, fmt.Errorf("convert %T to a table: not a dead letter", obj)
	}
	for i := range items {
		d := &items[i]
		sink := string(d.Family) + "/<any>"
		if d.Sink != nil {
			sink = d.Sink.BindingName()
		}
		t.Rows = append(t.Rows, metav1.TableRow{Object: runtime.RawExtension{Object: d}, Cells: []any{
			d.Name, d.Time.UTC().Format("2006-01-02T15:04:05Z"), d.Inventory, sink,
			strconv.FormatUint(d.Revision, 10), d.Reason, d.Message,
		}})
	}
	return t, nil
}
