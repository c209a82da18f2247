package itest

import (
	"fmt"
	"maps"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// TestPostgresTwoClustersShareOneTable exports two inventories, through
// sinks of clusters "east" and "west", into one table: each cluster's rows
// are exact, and emptying one cluster leaves the other's rows alone.
func TestPostgresTwoClustersShareOneTable(t *testing.T) {
	t.Parallel()
	db := newDatabase(t, "fleet")
	type side struct {
		cluster, ns string
		objs        []*appsv1.Deployment
		rows        []busv1.Row
	}
	sides := []*side{{cluster: "east", ns: "pg-east"}, {cluster: "west", ns: "pg-west"}}
	for i, s := range sides {
		namespace(t, s.ns, nil)
		secret(t, s.ns, "pg", map[string]string{"dsn": db.DSN})
		apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: fleet-table, namespace: $ns}
spec:
  type: postgres
  secretRef: {name: pg}
  cluster: $cluster
  provisioning: {mode: ensure}
  postgres: {table: fleet_rows}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  databaseSinkRefs: [fleet-table]
`, "$ns", s.ns, "$cluster", s.cluster)
		for j, name := range []string{"api", "web", "db"}[:2+i] {
			img := s.cluster + "/" + name + ":1"
			d := deployment{ns: s.ns, name: name, images: []string{img}, replicas: int32(j + 1)}.create(t)
			s.objs = append(s.objs, d)
			s.rows = append(s.rows, deploymentRow(s.ns, "deployments", d,
				map[string]any{"images": []any{img}, "replicas": j + 1}))
		}
	}
	inv := func(s *side) busv1.NamespacedName { return busv1.NamespacedName{Namespace: s.ns, Name: "apps"} }
	for _, s := range sides {
		db.waitRows(t, "fleet_rows", s.cluster, inv(s), s.rows, s.ns+"/apps")
	}
	east, west := sides[0], sides[1]
	before, err := db.rows(t.Context(), "fleet_rows", west.cluster, inv(west))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range east.objs {
		remove(t, d)
	}
	db.waitRows(t, "fleet_rows", east.cluster, inv(east), nil, east.ns+"/apps")
	db.waitRows(t, "fleet_rows", west.cluster, inv(west), west.rows, west.ns+"/apps")
	// The other cluster's export was not rewritten, and the table holds no
	// row of it under the emptied cluster.
	after, err := db.rows(t.Context(), "fleet_rows", west.cluster, inv(west))
	if err != nil || after.Revision != before.Revision || !maps.Equal(after.Checksums, before.Checksums) {
		t.Errorf("west export went from revision %d %v to %d %v (%v)", before.Revision, before.Checksums,
			after.Revision, after.Checksums, err)
	}
	got, err := db.rows(t.Context(), "fleet_rows", "east", inv(west))
	if err != nil || len(got.Rows) != 0 {
		t.Errorf("rows of cluster east for the west inventory: %v, %v", got.Rows, err)
	}
}

// TestPostgresClusterPartitionsOneInventory exports one inventory through
// sinks of clusters "east" and "west" into one table, so both partitions
// hold rows of the same inventory identity; after the west binding is
// removed, emptying the inventory empties east only.
func TestPostgresClusterPartitionsOneInventory(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "pg-shared", nil)
	db := newDatabase(t, "shared")
	secret(t, ns, "pg", map[string]string{"dsn": db.DSN})
	apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: east, namespace: $ns}
spec: {type: postgres, secretRef: {name: pg}, cluster: east, provisioning: {mode: ensure}, postgres: {table: rows}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: west, namespace: $ns}
spec: {type: postgres, secretRef: {name: pg}, cluster: west, provisioning: {mode: ensure}, postgres: {table: rows}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  databaseSinkRefs: [east, west]
`, "$ns", ns)
	d := deployment{ns: ns, name: "api", images: []string{"api:1"}, replicas: 1}.create(t)
	rows := []busv1.Row{deploymentRow(ns, "deployments", d, map[string]any{"images": []any{"api:1"}, "replicas": 1})}
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	for _, c := range []string{"east", "west"} {
		db.waitRows(t, "rows", c, inv, rows, ns+"/apps")
	}
	// control writes the inventory's status meanwhile: retry on conflicts.
	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var obj v1alpha1.KollectInventory
		if err := sys.k8s.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "apps"}, &obj); err != nil {
			return err
		}
		obj.Spec.DatabaseSinkRefs = obj.Spec.DatabaseSinkRefs[:1]
		return sys.k8s.Update(t.Context(), &obj)
	})
	if err != nil {
		t.Fatalf("unbind the west sink: %v", err)
	}
	eventually(t, waitFor, "binding database/west removed from status", func() error {
		st, err := statusOf(t, "KollectInventory", ns, "apps")
		if err != nil {
			return err
		}
		if _, err := sinkExport(st, "database/west"); err == nil {
			return fmt.Errorf("still bound: %+v", st.SinkExports)
		}
		return nil
	}, ns+"/apps")
	remove(t, d)
	db.waitRows(t, "rows", "east", inv, nil, ns+"/apps")
	db.waitRows(t, "rows", "west", inv, rows, ns+"/apps")
}
