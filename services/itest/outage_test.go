package itest

import (
	"fmt"
	"net/url"
	"strconv"
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// TestSinkOutageThenBack exports through TCP proxies in front of the Git,
// PostgreSQL and MongoDB servers, takes all three down, makes several
// changes, and brings them back: every sink converges to the newest state,
// and Git holds no duplicate commit.
func TestSinkOutageThenBack(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "outage", nil)
	repo := newRepo(t, "outage")
	db := newDatabase(t, "outage")
	mdb := newMongoDatabase(t, "outage")
	gitURL, _ := url.Parse(repo.URL)
	gitProxy := testenv.StartProxy(t, gitURL.Host)
	pgProxy := testenv.StartProxy(t, "127.0.0.1:"+strconv.Itoa(postgresServer(t).Port))
	secret(t, ns, "pg", map[string]string{"dsn": strings.Replace(db.DSN, "127.0.0.1:"+strconv.Itoa(postgresServer(t).Port), pgProxy.Addr, 1)})
	mongoProxy := testenv.StartProxy(t, mdb.Addr)
	secret(t, ns, "mongo", map[string]string{"uri": strings.Replace(mdb.URI, mdb.Addr, mongoProxy.Addr, 1)})
	apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec: {type: git, endpoint: $git}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: table, namespace: $ns}
spec:
  type: postgres
  secretRef: {name: pg}
  provisioning: {mode: ensure}
  postgres: {table: rows}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: documents, namespace: $ns}
spec:
  type: mongodb
  secretRef: {name: mongo}
  mongodb: {database: outage, collection: rows}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  snapshotSinkRefs: [git]
  databaseSinkRefs: [table, documents]
`, "$ns", ns, "$git", "http://"+gitProxy.Addr+gitURL.Path)
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	d := deployment{ns: ns, name: "api", images: []string{"api:1"}, replicas: 1}.create(t)
	rows := func(image string, replicas int) []busv1.Row {
		return []busv1.Row{deploymentRow(ns, "deployments", d, map[string]any{"images": []any{image}, "replicas": replicas})}
	}
	repo.waitDocument(t, "inventory/"+ns+"/apps.yaml", rows("api:1", 1), ns+"/apps")
	db.waitRows(t, "rows", "default", inv, rows("api:1", 1), ns+"/apps")
	mdb.waitRows(t, "rows", "default", inv, rows("api:1", 1), ns+"/apps")
	before := len(repo.subjects())

	gitProxy.Down()
	pgProxy.Down()
	mongoProxy.Down()
	for i := 2; i <= 4; i++ {
		update(t, ns, "api", func(d *appsv1.Deployment) {
			n := int32(i)
			d.Spec.Replicas = &n
			d.Spec.Template.Spec.Containers[0].Image = fmt.Sprintf("api:%d", i)
		})
	}
	// Wait until the exporters tried and failed against the dead proxies.
	waitSynced(t, ns, "apps", "snapshot/git", false)
	if err := gitProxy.Up(); err != nil {
		t.Fatal(err)
	}
	if err := pgProxy.Up(); err != nil {
		t.Fatal(err)
	}
	if err := mongoProxy.Up(); err != nil {
		t.Fatal(err)
	}
	repo.waitDocument(t, "inventory/"+ns+"/apps.yaml", rows("api:4", 4), ns+"/apps")
	db.waitRows(t, "rows", "default", inv, rows("api:4", 4), ns+"/apps")
	mdb.waitRows(t, "rows", "default", inv, rows("api:4", 4), ns+"/apps")
	subjects := repo.subjects()
	seen := map[string]bool{}
	for _, s := range subjects {
		if seen[s] {
			t.Errorf("duplicate commit %q in %q", s, subjects)
		}
		seen[s] = true
	}
	if n := len(subjects) - before; n < 1 || n > 3 {
		t.Errorf("%d commits for 3 changes made during the outage: %q", n, subjects)
	}
	if want := subject("default", inv, 1, checksum(t, rows("api:4", 4))); subjects[0] != want {
		t.Errorf("HEAD subject %q, want %q", subjects[0], want)
	}
}
