package verify_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/parquet-go/parquet-go"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/cli/internal/verify"
)

// parquetFile encodes env as the object-store sinks' Parquet projection of
// docs/sinks/s3.md: the fixed columns (attributes as JSON) and the
// envelope header in the key-value metadata.
func parquetFile(t *testing.T, env busv1.Envelope) []byte {
	t.Helper()
	g := parquet.Group{}
	for _, c := range []string{"cluster", "inventory_namespace", "inventory_name", "target_namespace", "target_name",
		"namespace", "name", "uid", "group", "version", "kind"} {
		g[c] = parquet.String()
	}
	g["exported_at"] = parquet.Timestamp(parquet.Microsecond)
	g["attributes"] = parquet.JSON()
	schema := parquet.NewSchema("kollect_inventory", g)
	opts := []parquet.WriterOption{schema,
		parquet.KeyValueMetadata("kollect.schemaVersion", env.SchemaVersion),
		parquet.KeyValueMetadata("kollect.checksum", env.Checksum),
		parquet.KeyValueMetadata("kollect.revision", strconv.FormatUint(env.Revision, 10)),
		parquet.KeyValueMetadata("kollect.itemCount", strconv.Itoa(env.ItemCount))}
	if env.PreviousChecksum != "" {
		opts = append(opts, parquet.KeyValueMetadata("kollect.previousChecksum", env.PreviousChecksum))
	}
	cfg, err := parquet.NewWriterConfig(opts...)
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	w := parquet.NewWriter(&buf, cfg)
	for _, r := range env.Items {
		attrs, err := json.Marshal(r.Attributes)
		if err != nil {
			t.Fatal(err)
		}
		m := map[string]any{"cluster": env.Cluster, "inventory_namespace": env.Inventory.Namespace,
			"inventory_name": env.Inventory.Name, "target_namespace": r.TargetNamespace, "target_name": r.TargetName,
			"namespace": r.Namespace, "name": r.Name, "uid": r.UID, "group": r.Group, "version": r.Version,
			"kind": r.Kind, "exported_at": env.ExportedAt, "attributes": string(attrs)}
		row := schema.Deconstruct(nil, m)
		if _, err := w.WriteRows([]parquet.Row{row}); err != nil {
			t.Fatal(err)
		}
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

// objectPeer is one object store the test writes with its own SDK.
type objectPeer struct {
	name  string
	store func(t *testing.T) (verify.Store, func(t *testing.T, key string, body []byte))
}

func objectPeers() []objectPeer {
	return []objectPeer{
		{"s3", func(t *testing.T) (verify.Store, func(*testing.T, string, []byte)) {
			srv := testenv.StartS3(t)
			srv.CreateBucket(t, "lake")
			t.Setenv("AWS_ACCESS_KEY_ID", srv.AccessKey)
			t.Setenv("AWS_SECRET_ACCESS_KEY", srv.SecretKey)
			t.Setenv("AWS_CONFIG_FILE", "/nonexistent")
			t.Setenv("AWS_SHARED_CREDENTIALS_FILE", "/nonexistent")
			st, err := verify.NewS3(t.Context(), "lake", srv.Endpoint, srv.Region)
			if err != nil {
				t.Fatal(err)
			}
			return st, func(t *testing.T, key string, body []byte) {
				if _, err := st.Client.PutObject(t.Context(), &s3.PutObjectInput{Bucket: aws.String("lake"), Key: aws.String(key),
					Body: bytes.NewReader(body)}); err != nil {
					t.Fatalf("put %s: %v", key, err)
				}
			}
		}},
		{"gcs", func(t *testing.T) (verify.Store, func(*testing.T, string, []byte)) {
			srv := testenv.StartGCS(t)
			srv.CreateBucket(t, "lake")
			t.Setenv("STORAGE_EMULATOR_HOST", srv.Host)
			st, err := verify.NewGCS(t.Context(), "lake")
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = st.Close() })
			return st, func(t *testing.T, key string, body []byte) {
				w := st.Client.Bucket("lake").Object(key).NewWriter(t.Context())
				if _, err := w.Write(body); err != nil {
					t.Fatalf("write %s: %v", key, err)
				}
				if err := w.Close(); err != nil {
					t.Fatalf("write %s: %v", key, err)
				}
			}
		}},
	}
}

// TestObjectsFindTheFirstTamperedRevision writes three revisions of web as
// Parquet files into a real S3 server (versitygw) and GCS emulator
// (fake-gcs-server), verifies them, then rewrites revision 2 with one
// attribute changed (its metadata kept) and expects the mismatch there.
func TestObjectsFindTheFirstTamperedRevision(t *testing.T) {
	for _, peer := range objectPeers() {
		t.Run(peer.name, func(t *testing.T) {
			st, put := peer.store(t)
			src := verify.Objects{Store: st, URL: peer.name + "://lake", Prefix: "kollect/", Cluster: "prod-eu-1", Inventory: web}
			folder := src.Folder()
			if want := "kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web/"; folder != want {
				t.Fatalf("folder %q, want %q", folder, want)
			}
			envs := chain(t)
			for _, env := range envs {
				put(t, fmt.Sprintf("%srevision=%d.parquet", folder, env.Revision), parquetFile(t, env))
			}
			put(t, folder+"_latest.json", []byte(`{"revision":3}`))
			put(t, "kollect/inventory/part_cluster=prod-eu-1/part_namespace=team-a/part_inventory=web-2/revision=1.parquet", []byte("not parquet"))
			res := check(t.Context(), t, src)
			if res.First != nil || res.Checked != 3 || res.Linked != 2 {
				t.Fatalf("untouched: %+v (first %+v), want 3 checked and 2 links", res, res.First)
			}

			tampered := envs[1]
			tampered.Items = append([]busv1.Row(nil), tampered.Items...)
			tampered.Items[1].Attributes = map[string]any{"v": 30.0, "image": "web:b"}
			put(t, folder+"revision=2.parquet", parquetFile(t, tampered))
			res = check(t.Context(), t, src)
			if res.First == nil || res.First.Revision != 2 || res.Checked != 1 ||
				!strings.HasSuffix(res.First.Where, "revision=2.parquet") || !strings.Contains(res.First.Reason, "hash to") {
				t.Fatalf("tampered: %+v (first %+v), want the mismatch at revision 2", res, res.First)
			}

			put(t, folder+"revision=2.parquet", []byte("PAR1 garbage"))
			res = check(t.Context(), t, src)
			if res.First == nil || res.First.Revision != 2 || !strings.Contains(res.First.Reason, "not a readable Parquet file") {
				t.Fatalf("garbage: first %+v, want revision 2 unreadable", res.First)
			}
		})
	}
}

func check(ctx context.Context, t *testing.T, src verify.Objects) verify.Result {
	t.Helper()
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	revs, err := src.Revisions(ctx)
	if err != nil {
		t.Fatal(err)
	}
	res, err := verify.Check(revs)
	if err != nil {
		t.Fatal(err)
	}
	return res
}
