package itest

import (
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/google/go-cmp/cmp/cmpopts"
	appsv1 "k8s.io/api/apps/v1"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// TestFanOutToEverySinkFamily binds one inventory to Git, S3 Parquet,
// Postgres, MongoDB, Kafka and NATS with different cadences: all six hold
// the same rows and checksum, and a material change reaches all six at once
// whatever their intervals.
func TestFanOutToEverySinkFamily(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "fanout", nil)
	repo := newRepo(t, "fanout")
	s3 := s3Server(t)
	s3.CreateBucket(t, "fanout")
	db := newDatabase(t, "fanout")
	mdb := newMongoDatabase(t, "fanout")
	broker := kafkaCluster(t).ListenAddrs()[0]
	nats := natsServer(t)
	secret(t, ns, "s3", map[string]string{"accessKeyID": s3.AccessKey, "secretAccessKey": s3.SecretKey})
	secret(t, ns, "pg", map[string]string{"dsn": db.DSN})
	secret(t, ns, "mongo", map[string]string{"uri": mdb.URI})
	apply(t, deploymentCRs+`
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: git, namespace: $ns}
spec: {type: git, endpoint: $git}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: lake, namespace: $ns}
spec:
  type: s3
  endpoint: $s3/fanout/lake
  secretRef: {name: s3}
  serialization: {format: parquet}
  objectStore: {hotAttributes: [replicas]}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: table, namespace: $ns}
spec:
  type: postgres
  secretRef: {name: pg}
  provisioning: {mode: ensure}
  postgres: {table: inventory}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectDatabaseSink
metadata: {name: documents, namespace: $ns}
spec:
  type: mongodb
  secretRef: {name: mongo}
  mongodb: {database: fanout, collection: inventory}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectEventSink
metadata: {name: kafka, namespace: $ns}
spec:
  type: kafka
  exportMinInterval: 5m
  kafka: {brokers: [$broker], topic: fanout}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectEventSink
metadata: {name: nats, namespace: $ns}
spec:
  type: nats
  nats: {url: $nats, subject: itest.fanout, stream: FANOUT}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  exportMinInterval: 2m
  snapshotSinkRefs: [git, {name: lake, exportMinInterval: 1h}]
  databaseSinkRefs: [{name: table, exportMinInterval: 10m}, {name: documents, exportMinInterval: 30m}]
  eventSinkRefs: [kafka, nats]
`, "$ns", ns, "$git", repo.URL, "$s3", s3.Endpoint, "$broker", broker, "$nats", nats.URL)
	objs := []*appsv1.Deployment{
		deployment{ns: ns, name: "api", images: []string{"api:1"}, replicas: 2}.create(t),
		deployment{ns: ns, name: "web", images: []string{"web:1", "proxy:2"}, replicas: 3}.create(t),
	}
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	rows := func(replicas ...int) []busv1.Row {
		return []busv1.Row{
			deploymentRow(ns, "deployments", objs[0], map[string]any{"images": []any{"api:1"}, "replicas": replicas[0]}),
			deploymentRow(ns, "deployments", objs[1], map[string]any{"images": []any{"web:1", "proxy:2"}, "replicas": replicas[1]}),
		}
	}
	checkAll := func(step string, want []busv1.Row) {
		t.Helper()
		sum := checksum(t, want)
		readers := map[string]func() (export, error){
			"git": func() (export, error) {
				st, err := repo.state("default", inv)
				return export{Checksum: st.Checksum, Revision: st.Revision, Rows: want}, err
			},
			"s3": func() (export, error) { return s3Parquet(t.Context(), t, "fanout", "lake", "default", inv) },
			"postgres": func() (export, error) {
				got, err := db.rows(t.Context(), "inventory", "default", inv)
				return export{Checksum: got.Checksum, Revision: uint64(got.Revision), Rows: got.Rows}, err
			},
			"mongodb": func() (export, error) { return mdb.rows(t.Context(), "inventory", "default", inv) },
			"kafka":   func() (export, error) { return kafkaLast(t.Context(), broker, "fanout", "default", inv) },
			"nats":    func() (export, error) { return natsLast(t.Context(), t, "FANOUT", "itest.fanout", "default", inv) },
		}
		for name, read := range readers {
			eventually(t, waitFor, step+": "+name, func() error {
				got, err := read()
				if err != nil {
					return err
				}
				if d := cmp.Diff(norm(t, want), norm(t, got.Rows), cmpopts.EquateEmpty()); d != "" {
					return fmt.Errorf("rows (-want +got):\n%s", d)
				}
				if got.Checksum != sum {
					return fmt.Errorf("checksum %s, want %s", got.Checksum, sum)
				}
				return nil
			}, ns+"/apps")
		}
		repo.waitDocument(t, "inventory/"+ns+"/apps.yaml", want, ns+"/apps")
	}
	// The Profile declares replicas int: its Parquet column is an INT64
	// (the declared type travels from the collector to the file).
	checkReplicas := func(step string, want ...int64) {
		t.Helper()
		eventually(t, waitFor, step+": attr_replicas column", func() error {
			got, err := s3ParquetColumn(t.Context(), t, "fanout", "lake", "default", inv, "attr_replicas")
			if err != nil {
				return err
			}
			wantCol := parquetColumn{Pointer: "int64", Physical: "INT64", Values: []any{}}
			for _, v := range want {
				wantCol.Values = append(wantCol.Values, v)
			}
			if d := cmp.Diff(wantCol, got, cmpopts.EquateEmpty()); d != "" {
				return fmt.Errorf("attr_replicas (-want +got):\n%s", d)
			}
			return nil
		}, ns+"/apps")
	}
	checkAll("initial export", rows(2, 3))
	checkReplicas("initial export", 2, 3)
	update(t, ns, "api", func(d *appsv1.Deployment) { n := int32(5); d.Spec.Replicas = &n })
	checkAll("after a scale", rows(5, 3))
	checkReplicas("after a scale", 5, 3)
}
