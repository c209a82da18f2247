package s3

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore/objectstoretest"
)

// TestLegacyLayout checks the upgrade from the cluster=/ns=/name= Parquet
// layout of docs/sinks/s3.md: the first export in the new layout deletes the
// old pointer and keeps the old files; deleting the inventory removes both
// folders; other inventories' old folders are not touched.
func TestLegacyLayout(t *testing.T) {
	p := startPeer(t)
	b := newBucketName()
	p.srv.CreateBucket(t, b)
	old := "lake/inventory/cluster=conformance/ns=team-a/name=web/"
	other := "lake/inventory/cluster=conformance/ns=team-a/name=web2/"
	for _, key := range []string{old + "revision=1.parquet", old + "_latest.json", other + "_latest.json"} {
		if _, err := p.client.PutObject(context.Background(), &awss3.PutObjectInput{Bucket: &b, Key: &key}); err != nil {
			t.Fatal(err)
		}
	}
	spec := p.spec(b, "lake", "parquet", "none")
	spec.ObjectStore = &v1alpha1.ObjectStoreSink{HotAttributes: []string{"image", "restarts"}}
	s := p.newSink(t, spec)
	folder := "lake/inventory/part_cluster=conformance/part_namespace=team-a/part_inventory=web/"

	t.Run("a refused delete of the old pointer fails the export before it writes", func(t *testing.T) {
		refusing, cb, _ := p.countingSink(t, spec)
		cb.refuseDeletes = true
		err := refusing.Write(context.Background(), objectstoretest.Pods(t, 2, 2))
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), old+"_latest.json") {
			t.Fatalf("write returned %v, want a permanent error naming the old pointer", err)
		}
		want := []string{old + "_latest.json", old + "revision=1.parquet", other + "_latest.json"}
		if d := cmp.Diff(want, p.list(t, b, "lake/")); d != "" {
			t.Errorf("objects (-want +got):\n%s", d)
		}
	})
	t.Run("the first export in the new layout deletes the old pointer only", func(t *testing.T) {
		objectstoretest.Write(t, s, objectstoretest.Pods(t, 2, 2))
		want := []string{old + "revision=1.parquet", other + "_latest.json",
			folder + "_latest.json", folder + "revision=2.parquet"}
		if d := cmp.Diff(want, p.list(t, b, "lake/")); d != "" {
			t.Errorf("objects (-want +got):\n%s", d)
		}
	})
	t.Run("an empty snapshot keeps the column types of the previous file", func(t *testing.T) {
		objectstoretest.Write(t, s, objectstoretest.Pods(t, 3, 0))
		get := p.getter(b)
		body, _, err := get(context.Background(), folder+"_latest.json")
		if err != nil {
			t.Fatal(err)
		}
		var st objectstore.State
		if err := json.Unmarshal(body, &st); err != nil {
			t.Fatal(err)
		}
		want := map[string]objectstore.ColumnType{"attr_image": "string", "attr_restarts": "double"}
		if d := cmp.Diff(want, st.ColumnTypes); d != "" {
			t.Errorf("the pointer's column types (-want +got):\n%s", d)
		}
		file, _, err := get(context.Background(), st.Key)
		if err != nil {
			t.Fatal(err)
		}
		pf, err := objectstoretest.ReadParquet(file)
		if err != nil {
			t.Fatal(err)
		}
		got := []string{pf.ColumnType("attr_image"), pf.ColumnType("attr_restarts")}
		if d := cmp.Diff([]string{"optional binary attr_image (STRING)", "optional double attr_restarts"}, got); d != "" {
			t.Errorf("the empty file's columns (-want +got):\n%s", d)
		}
	})
	t.Run("deleting the inventory removes both of its folders", func(t *testing.T) {
		del := objectstoretest.Pods(t, 4, 0)
		del.Deleted = true
		objectstoretest.Write(t, s, del)
		if d := cmp.Diff([]string{other + "_latest.json"}, p.list(t, b, "lake/")); d != "" {
			t.Errorf("objects (-want +got):\n%s", d)
		}
	})
}
