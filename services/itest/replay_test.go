package itest

import (
	"fmt"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

const replaySinks = `
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: live, namespace: $ns}
spec:
  type: postgres
  secretRef: {name: pg}
  provisioning: {mode: ensure}
  postgres: {table: live_rows, history: {enabled: true}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: fill, namespace: $ns}
spec:
  type: postgres
  secretRef: {name: pg}
  provisioning: {mode: ensure}
  postgres: {table: fill_rows, history: {enabled: true}}
`

// TestAKollectReplayBackfillsANewPostgresSink runs a backfill through the
// whole system: control compiles the KollectReplay, the aggregator
// delivers every retained revision to the new binding one at a time, the
// database exporter writes them, and control folds the progress into
// status. The new sink ends with the live sink's rows, and with its
// history: both sinks keep history, and the backfill rebuilds in the new
// one the versions and revisions the live one recorded as they happened
// (the first backfilled revision rewinds what the new binding's regular
// export recorded, and the backfill's hold keeps regular exports out
// until it is done).
func TestAKollectReplayBackfillsANewPostgresSink(t *testing.T) {
	t.Parallel()
	db := newDatabase(t, "replay")
	ns := namespace(t, "replay-pg", nil)
	secret(t, ns, "pg", map[string]string{"dsn": db.DSN})
	apply(t, deploymentCRs+replaySinks+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  databaseSinkRefs: [live]
  history: {revisions: 50}
`, "$ns", ns)
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	d := deployment{ns: ns, name: "web", images: []string{"web:1"}, replicas: 1}.create(t)
	row := func(d *appsv1.Deployment, replicas int) []busv1.Row {
		return []busv1.Row{deploymentRow(ns, "deployments", d, map[string]any{"images": []any{"web:1"}, "replicas": replicas})}
	}
	db.waitRows(t, "live_rows", "default", inv, row(d, 1), ns+"/apps")
	for _, n := range []int32{2, 3} {
		update(t, ns, "web", func(d *appsv1.Deployment) { d.Spec.Replicas = &n })
		db.waitRows(t, "live_rows", "default", inv, row(d, int(n)), ns+"/apps")
	}
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var o v1alpha1.KollectInventory
		if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "apps"}, &o); err != nil {
			return err
		}
		o.Spec.DatabaseSinkRefs = append(o.Spec.DatabaseSinkRefs, v1alpha1.SinkBinding{Name: "fill"})
		return sys.k8s.Update(t.Context(), &o)
	})
	if err != nil {
		t.Fatal(err)
	}
	// The new binding gets the current revision through a regular export
	// first, as it does in production: the backfill then arrives older.
	db.waitRows(t, "fill_rows", "default", inv, row(d, 3), ns+"/apps")
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectReplay
metadata: {name: fill-all, namespace: $ns}
spec:
  inventoryRef: {name: apps}
  sink: database/fill
  backfill: {}
`, "$ns", ns)
	var rp v1alpha1.KollectReplay
	eventually(t, waitFor, "the backfill to succeed", func() error {
		if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "fill-all"}, &rp); err != nil {
			return err
		}
		if s := rp.Status; s.Phase != v1alpha1.ReplaySucceeded {
			return fmt.Errorf("phase %q, %d of %d, conditions %v", s.Phase, s.RevisionsDone, s.RevisionsTotal, s.Conditions)
		}
		return nil
	}, ns+"/apps")
	if s := rp.Status; s.RevisionsTotal < 3 || s.RevisionsDone != s.RevisionsTotal || s.CompletionTime == nil {
		t.Errorf("status %+v: want every retained revision (at least the 3 changes) delivered", s)
	}
	db.waitRows(t, "fill_rows", "default", inv, row(d, 3), ns+"/apps")
	eventually(t, waitFor, "the backfilled history to equal the live one", func() error {
		for _, q := range []string{
			`SELECT target_namespace, target_name, source_uid, attributes::text, valid_from_revision::text,
  coalesce(valid_to_revision::text, 'open') FROM public.%s_history
WHERE cluster = 'default' AND inventory_namespace = $1 AND inventory_name = $2 ORDER BY source_uid, valid_from_revision`,
			`SELECT revision::text, checksum, previous_checksum, item_count::text FROM public.%s_revisions
WHERE cluster = 'default' AND inventory_namespace = $1 AND inventory_name = $2 ORDER BY revision`,
		} {
			live, err := db.texts(t.Context(), strings.ReplaceAll(q, "%s", "live_rows"), inv.Namespace, inv.Name)
			if err != nil {
				return err
			}
			if len(live) < 3 {
				return fmt.Errorf("the live history holds %d rows, want at least the 3 revisions:\n%s", len(live), q)
			}
			fill, err := db.texts(t.Context(), strings.ReplaceAll(q, "%s", "fill_rows"), inv.Namespace, inv.Name)
			if err != nil {
				return err
			}
			if diff := cmp.Diff(live, fill); diff != "" {
				return fmt.Errorf("live (-) and backfilled (+) history differ:\n%s\n%s", q, diff)
			}
		}
		return nil
	}, ns+"/apps")
}
