package itest

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	"github.com/jackc/pgx/v5"
	eventsv1 "k8s.io/api/events/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// TestPostgresRepairedByHandConvergesAgain exports Deployments to a table
// with a short exportMinInterval, then deletes, as a user would, the
// inventory's rows and its state row by hand: the next periodic re-export
// finds the drift and writes the snapshot again, within one interval, and
// control records a DriftRepaired event on the inventory. An edited row is
// restored the same way.
func TestPostgresRepairedByHandConvergesAgain(t *testing.T) {
	t.Parallel()
	const interval = 3 * time.Second
	ns := namespace(t, "pg-drift", nil)
	db := newDatabase(t, "drift")
	secret(t, ns, "pg", map[string]string{"dsn": db.DSN})
	apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: table, namespace: $ns}
spec: {type: postgres, secretRef: {name: pg}, cluster: east, provisioning: {mode: ensure}, postgres: {table: apps}}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  databaseSinkRefs: [{name: table, exportMinInterval: 3s}]
`, "$ns", ns)
	var rows []busv1.Row
	for i, name := range []string{"api", "web", "db"} {
		img := name + ":1"
		d := deployment{ns: ns, name: name, images: []string{img}, replicas: int32(i + 1)}.create(t)
		rows = append(rows, deploymentRow(ns, "deployments", d, map[string]any{"images": []any{img}, "replicas": i + 1}))
	}
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	const cluster = "east"
	db.waitRows(t, "apps", cluster, inv, rows, ns+"/apps")
	for _, damage := range []struct {
		name  string
		stmts []string
		// repairs is the number of DriftRepaired events once restored.
		repairs int
	}{
		{"rows and the state row deleted by hand", []string{`DELETE FROM public.apps`, `DELETE FROM public.apps_state`}, 1},
		{"a row edited by hand", []string{`UPDATE public.apps SET attributes = '{"replicas": 99}' WHERE resource_name = 'web'`}, 2},
	} {
		db.exec(t, damage.stmts...)
		// One periodic event is due within interval; the slack covers a
		// loaded machine.
		deadline := interval + 20*time.Second
		started := time.Now()
		eventually(t, deadline, damage.name+": rows restored", func() error {
			got, err := db.rows(t.Context(), "apps", cluster, inv)
			if err != nil {
				return err
			}
			if diff := cmpRows(t, rows, got); diff != "" {
				return fmt.Errorf("rows (-want +got):\n%s", diff)
			}
			return nil
		}, ns+"/apps")
		t.Logf("%s: restored after %v (loaded machine)", damage.name, time.Since(started).Round(100*time.Millisecond))
		eventually(t, waitFor, damage.name+": DriftRepaired events", func() error {
			var list eventsv1.EventList
			if err := sys.k8s.List(t.Context(), &list, client.InNamespace(ns)); err != nil {
				return err
			}
			var notes []string
			for _, e := range list.Items {
				if e.Regarding.Name == "apps" && e.Reason == v1alpha1.ReasonDriftRepaired {
					notes = append(notes, e.Note)
				}
			}
			if len(notes) != damage.repairs || !strings.Contains(strings.Join(notes, "\n"), "database/table") {
				return fmt.Errorf("DriftRepaired events %q, want %d naming database/table", notes, damage.repairs)
			}
			return nil
		}, ns+"/apps")
	}
}

// cmpRows compares the rows and state checksum of got with rows.
func cmpRows(t *testing.T, rows []busv1.Row, got pgExport) string {
	if diff := cmp.Diff(norm(t, rows), norm(t, got.Rows), cmpopts.EquateEmpty()); diff != "" {
		return diff
	}
	if sum := checksum(t, rows); got.Checksum != sum {
		return fmt.Sprintf("state checksum %q, want %q", got.Checksum, sum)
	}
	return ""
}

// exec runs statements on the database, failing the test on error.
func (d pgDatabase) exec(t *testing.T, stmts ...string) {
	t.Helper()
	conn, err := pgx.Connect(t.Context(), d.DSN)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(context.WithoutCancel(t.Context())) }()
	for _, s := range stmts {
		if _, err := conn.Exec(t.Context(), s); err != nil {
			t.Fatalf("%s: %v", s, err)
		}
	}
}
