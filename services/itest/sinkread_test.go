package itest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/credentials"
	awss3 "github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/parquet-go/parquet-go"
	"github.com/twmb/franz-go/pkg/kadm"
	"github.com/twmb/franz-go/pkg/kgo"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// export is what one sink holds for one inventory, read back from it.
type export struct {
	Checksum string
	Revision uint64
	Rows     []busv1.Row
}

// s3Client is a client of the shared S3 server.
func s3Client(t *testing.T) *awss3.Client {
	srv := s3Server(t)
	return awss3.New(awss3.Options{Region: srv.Region, BaseEndpoint: aws.String(srv.Endpoint), UsePathStyle: true,
		Credentials: credentials.NewStaticCredentialsProvider(srv.AccessKey, srv.SecretKey, "")})
}

// s3Keys lists the keys of bucket.
func s3Keys(ctx context.Context, t *testing.T, bucket string) ([]string, error) {
	out, err := s3Client(t).ListObjectsV2(ctx, &awss3.ListObjectsV2Input{Bucket: aws.String(bucket)})
	if err != nil {
		return nil, fmt.Errorf("list s3://%s: %w", bucket, err)
	}
	var keys []string
	for _, o := range out.Contents {
		keys = append(keys, aws.ToString(o.Key))
	}
	return keys, nil
}

// s3Object reads bucket/key from the shared S3 server.
func s3Object(ctx context.Context, t *testing.T, bucket, key string) ([]byte, error) {
	out, err := s3Client(t).GetObject(ctx, &awss3.GetObjectInput{Bucket: aws.String(bucket), Key: aws.String(key)})
	if err != nil {
		return nil, fmt.Errorf("get s3://%s/%s: %w", bucket, key, err)
	}
	defer func() { _ = out.Body.Close() }()
	return io.ReadAll(out.Body)
}

// s3Parquet reads the latest Parquet file of inventory inv of cluster
// under bucket/prefix, through its _latest.json pointer.
func s3Parquet(ctx context.Context, t *testing.T, bucket, prefix, cluster string, inv busv1.NamespacedName) (export, error) {
	ns := inv.Namespace
	if ns == "" {
		ns = "_cluster"
	}
	pointer := fmt.Sprintf("%s/inventory/part_cluster=%s/part_namespace=%s/part_inventory=%s/_latest.json", prefix, cluster, ns, inv.Name)
	body, err := s3Object(ctx, t, bucket, pointer)
	if err != nil {
		return export{}, err
	}
	var latest struct {
		Revision uint64 `json:"revision"`
		Checksum string `json:"checksum"`
		Key      string `json:"key"`
	}
	if err := json.Unmarshal(body, &latest); err != nil {
		return export{}, fmt.Errorf("decode %s: %w", pointer, err)
	}
	file, err := s3Object(ctx, t, bucket, latest.Key)
	if err != nil {
		return export{}, err
	}
	rows, meta, err := parquetRows(file)
	if err != nil {
		return export{}, fmt.Errorf("read %s: %w", latest.Key, err)
	}
	if meta["kollect.checksum"] != latest.Checksum {
		return export{}, fmt.Errorf("%s has checksum %s, its pointer %s", latest.Key, meta["kollect.checksum"], latest.Checksum)
	}
	return export{Checksum: latest.Checksum, Revision: latest.Revision, Rows: rows}, nil
}

// parquetRows decodes the rows of a Parquet file from its columns (the
// attributes from the JSON column) and returns its key-value metadata.
func parquetRows(body []byte) ([]busv1.Row, map[string]string, error) {
	f, err := parquet.OpenFile(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		return nil, nil, err
	}
	meta := map[string]string{}
	for _, kv := range f.Metadata().KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	var cols []string
	for _, p := range f.Schema().Columns() {
		cols = append(cols, strings.Join(p, "."))
	}
	rows := []busv1.Row{}
	buf := make([]parquet.Row, 64)
	for _, rg := range f.RowGroups() {
		rr := rg.Rows()
		for {
			n, err := rr.ReadRows(buf)
			for _, pr := range buf[:n] {
				m := map[string]string{}
				for _, v := range pr {
					if !v.IsNull() && v.Kind() == parquet.ByteArray {
						m[cols[v.Column()]] = string(v.ByteArray())
					}
				}
				r := busv1.Row{TargetNamespace: m["target_namespace"], TargetName: m["target_name"],
					Namespace: m["namespace"], Name: m["name"], UID: m["uid"], Group: m["group"],
					Version: m["version"], Kind: m["kind"]}
				if err := json.Unmarshal([]byte(m["attributes"]), &r.Attributes); err != nil {
					_ = rr.Close()
					return nil, nil, fmt.Errorf("attributes of %s: %w", r.UID, err)
				}
				rows = append(rows, r)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rr.Close()
				return nil, nil, err
			}
		}
		_ = rr.Close()
	}
	return rows, meta, nil
}

// kafkaLast reads topic from the start and returns the last envelope keyed
// <cluster>/<namespace>/<inventory>, checking its headers.
func kafkaLast(ctx context.Context, broker, topic, cluster string, inv busv1.NamespacedName) (export, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	cl, err := kgo.NewClient(kgo.SeedBrokers(broker), kgo.ConsumeTopics(topic),
		kgo.ConsumeResetOffset(kgo.NewOffset().AtStart()))
	if err != nil {
		return export{}, err
	}
	defer cl.Close()
	ends, err := kadm.NewClient(cl).ListEndOffsets(ctx, topic)
	if err != nil {
		return export{}, fmt.Errorf("list end offsets of %s: %w", topic, err)
	}
	want := map[int32]int64{}
	ends.Each(func(o kadm.ListedOffset) {
		if o.Offset > 0 {
			want[o.Partition] = o.Offset
		}
	})
	var last *kgo.Record
	key := cluster + "/" + inv.Namespace + "/" + inv.Name
	for len(want) > 0 {
		f := cl.PollFetches(ctx)
		if err := ctx.Err(); err != nil {
			return export{}, err
		}
		f.EachRecord(func(r *kgo.Record) {
			if string(r.Key) == key {
				last = r
			}
			if r.Offset+1 >= want[r.Partition] {
				delete(want, r.Partition)
			}
		})
	}
	if last == nil {
		return export{}, fmt.Errorf("no record keyed %s in %s", key, topic)
	}
	return decodeEnvelope(last.Value, map[string]string{"kollect-checksum": "", "kollect-cluster": cluster}, last.Headers)
}

// decodeEnvelope decodes a whole-snapshot envelope and checks the headers
// named in want ("" = the envelope's checksum).
func decodeEnvelope(value []byte, want map[string]string, headers []kgo.RecordHeader) (export, error) {
	var env busv1.Envelope
	if err := json.Unmarshal(value, &env); err != nil {
		return export{}, fmt.Errorf("decode envelope: %w", err)
	}
	if env.PartTotal > 1 {
		return export{}, fmt.Errorf("envelope in %d parts", env.PartTotal)
	}
	got := map[string]string{}
	for _, h := range headers {
		got[h.Key] = string(h.Value)
	}
	for k, v := range want {
		if v == "" {
			v = env.Checksum
		}
		if got[k] != v {
			return export{}, fmt.Errorf("header %s = %q, want %q", k, got[k], v)
		}
	}
	return export{Checksum: env.Checksum, Revision: env.Revision, Rows: env.Items}, nil
}

// natsLast returns the last envelope on subject of stream on the external
// NATS server, checking its Nats-Msg-Id.
func natsLast(ctx context.Context, t *testing.T, stream, subject, cluster string, inv busv1.NamespacedName) (export, error) {
	s, err := natsServer(t).JS.Stream(ctx, stream)
	if err != nil {
		return export{}, fmt.Errorf("stream %s: %w", stream, err)
	}
	msg, err := s.GetLastMsgForSubject(ctx, subject)
	if err != nil {
		return export{}, fmt.Errorf("last message on %s: %w", subject, err)
	}
	ex, err := decodeEnvelope(msg.Data, nil, nil)
	if err != nil {
		return export{}, err
	}
	// docs/sinks/nats.md extends the contract's id with the revision.
	want := fmt.Sprintf("%s/%s/%s/%s/%d", cluster, inv.Namespace, inv.Name, ex.Checksum, ex.Revision)
	if id := msg.Header.Get("Nats-Msg-Id"); id != want {
		return export{}, fmt.Errorf("Nats-Msg-Id %q, want %q", id, want)
	}
	return ex, nil
}
