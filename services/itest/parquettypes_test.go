package itest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/parquet-go/parquet-go"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// parquetColumn is one attr_ column of the latest Parquet file of an
// inventory, as its pointer records it and as the file declares it.
type parquetColumn struct {
	// Pointer is the type the _latest.json pointer records (columnTypes).
	Pointer string
	// Physical is the column's Parquet physical type (INT64, DOUBLE, ...).
	Physical string
	// Values are the column's non-null values, in row order.
	Values []any
}

// s3ParquetColumn reads column col of the latest Parquet file of inventory
// inv of cluster under bucket/prefix.
func s3ParquetColumn(ctx context.Context, t *testing.T, bucket, prefix, cluster string, inv busv1.NamespacedName, col string) (parquetColumn, error) {
	pointer := fmt.Sprintf("%s/inventory/part_cluster=%s/part_namespace=%s/part_inventory=%s/_latest.json", prefix, cluster, inv.Namespace, inv.Name)
	body, err := s3Object(ctx, t, bucket, pointer)
	if err != nil {
		return parquetColumn{}, err
	}
	var latest struct {
		Key         string            `json:"key"`
		ColumnTypes map[string]string `json:"columnTypes"`
	}
	if err := json.Unmarshal(body, &latest); err != nil {
		return parquetColumn{}, fmt.Errorf("decode %s: %w", pointer, err)
	}
	file, err := s3Object(ctx, t, bucket, latest.Key)
	if err != nil {
		return parquetColumn{}, err
	}
	f, err := parquet.OpenFile(bytes.NewReader(file), int64(len(file)))
	if err != nil {
		return parquetColumn{}, err
	}
	leaf, ok := f.Schema().Lookup(col)
	if !ok {
		return parquetColumn{}, fmt.Errorf("%s has no column %s", latest.Key, col)
	}
	out := parquetColumn{Pointer: latest.ColumnTypes[col], Physical: leaf.Node.Type().Kind().String()}
	for _, rg := range f.RowGroups() {
		pages := rg.ColumnChunks()[leaf.ColumnIndex].Pages()
		for {
			p, err := pages.ReadPage()
			if err != nil {
				break
			}
			vals := make([]parquet.Value, p.NumValues())
			n, _ := p.Values().ReadValues(vals)
			for _, v := range vals[:n] {
				switch {
				case v.IsNull():
				case v.Kind() == parquet.Int64:
					out.Values = append(out.Values, v.Int64())
				case v.Kind() == parquet.Double:
					out.Values = append(out.Values, v.Double())
				case v.Kind() == parquet.Boolean:
					out.Values = append(out.Values, v.Boolean())
				default:
					out.Values = append(out.Values, v.String())
				}
			}
		}
		_ = pages.Close()
	}
	return out, nil
}

// TestParquetColumnsHaveTheProfilesTypes: the types a Profile declares
// reach the Parquet file through the whole system (collector, aggregator,
// exporter): int is an INT64 column with exact values, float a DOUBLE,
// bool a BOOLEAN, string a BYTE_ARRAY; an attribute of type any stays
// inferred (a whole number is a DOUBLE).
func TestParquetColumnsHaveTheProfilesTypes(t *testing.T) {
	t.Parallel()
	ns := namespace(t, "typed-cols", nil)
	s3 := s3Server(t)
	s3.CreateBucket(t, "typed")
	secret(t, ns, "s3", map[string]string{"accessKeyID": s3.AccessKey, "secretAccessKey": s3.SecretKey})
	apply(t, `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: typed, namespace: $ns}
spec:
  targetGVK: {group: apps, version: v1, kind: Deployment}
  attributes:
  - {name: replicas, path: $.spec.replicas, type: int}
  - {name: half, path: "cel:double(object.spec.replicas) / 2.0", type: float}
  - {name: scaled, path: "cel:object.spec.replicas > 2", type: bool}
  - {name: image, path: "$.spec.template.spec.containers[0].image", type: string}
  - {name: untyped, path: $.spec.replicas}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: deployments, namespace: $ns}
spec:
  profileRef: {name: typed}
  includedNamespaces: [$ns]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectSnapshotSink
metadata: {name: lake, namespace: $ns}
spec:
  type: s3
  endpoint: $s3/typed/lake
  secretRef: {name: s3}
  serialization: {format: parquet}
  objectStore: {hotAttributes: [replicas, half, scaled, image, untyped]}
---
apiVersion: kollect.dev/v1alpha1
kind: KollectInventory
metadata: {name: apps, namespace: $ns}
spec:
  snapshotSinkRefs: [lake]
`, "$ns", ns, "$s3", s3.Endpoint)
	deployment{ns: ns, name: "api", images: []string{"api:1"}, replicas: 2}.create(t)
	deployment{ns: ns, name: "web", images: []string{"web:1"}, replicas: 3}.create(t)
	inv := busv1.NamespacedName{Namespace: ns, Name: "apps"}
	want := map[string]parquetColumn{
		"attr_replicas": {Pointer: "int64", Physical: "INT64", Values: []any{int64(2), int64(3)}},
		"attr_half":     {Pointer: "double", Physical: "DOUBLE", Values: []any{1.0, 1.5}},
		"attr_scaled":   {Pointer: "boolean", Physical: "BOOLEAN", Values: []any{false, true}},
		"attr_image":    {Pointer: "string", Physical: "BYTE_ARRAY", Values: []any{"api:1", "web:1"}},
		"attr_untyped":  {Pointer: "double", Physical: "DOUBLE", Values: []any{2.0, 3.0}},
	}
	for col, w := range want {
		eventually(t, waitFor, col, func() error {
			got, err := s3ParquetColumn(t.Context(), t, "typed", "lake", "default", inv, col)
			if err != nil {
				return err
			}
			if d := cmp.Diff(w, got); d != "" {
				return fmt.Errorf("%s (-want +got):\n%s", col, d)
			}
			return nil
		}, ns+"/apps")
	}
}
