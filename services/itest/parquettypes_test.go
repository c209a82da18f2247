package itest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"testing"

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
				default:
					out.Values = append(out.Values, v.String())
				}
			}
		}
		_ = pages.Close()
	}
	return out, nil
}
