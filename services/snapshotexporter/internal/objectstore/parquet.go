package objectstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// The fixed Parquet columns of CONTRACT.md, all required. exported_at is a
// UTC timestamp in microseconds; attributes holds every attribute (hot ones
// included) as JSON. The file's key-value metadata carries the envelope
// header: kollect.schemaVersion, kollect.checksum, kollect.revision,
// kollect.generation, kollect.itemCount.
var fixedColumns = []string{"cluster", "inventory_namespace", "inventory_name", "target_namespace",
	"target_name", "namespace", "name", "uid", "group", "version", "kind", "exported_at", "attributes"}

// AttributeColumnPrefix prefixes the column of each hot attribute.
const AttributeColumnPrefix = "attr_"

// attrKind is the Parquet type inferred for a hot attribute.
type attrKind int

const (
	kindString attrKind = iota // also the type of a column with no value at all
	kindInt64
	kindDouble
	kindBool
	kindJSON // lists, maps and mixed types, as JSON text
)

// parquetRowBatch bounds the rows buffered before they reach the writer.
const parquetRowBatch = 1024

// hotColumn is one typed attribute column.
type hotColumn struct {
	attr  string
	kind  attrKind
	index int
}

// ParquetSchema returns the schema of env's Parquet file: the fixed columns
// and one optional attr_<name> column per hot attribute, typed from the
// snapshot's values: string, int64 (numbers that are all whole), double,
// boolean, or JSON text for lists, maps and mixed types. Columns are in
// name order (parquet.Group sorts its fields).
func (l *Layout) ParquetSchema(env *busv1.Envelope) (*parquet.Schema, []hotColumn) {
	g := parquet.Group{}
	for _, c := range fixedColumns {
		g[c] = parquet.String()
	}
	g["exported_at"] = parquet.Timestamp(parquet.Microsecond)
	g["attributes"] = parquet.JSON()
	hot := make([]hotColumn, 0, len(l.HotAttributes))
	for _, a := range l.HotAttributes {
		k := inferKind(env.Items, a)
		g[AttributeColumnPrefix+a] = parquet.Optional(kindNode(k))
		hot = append(hot, hotColumn{attr: a, kind: k})
	}
	schema := parquet.NewSchema("kollect_inventory", g)
	for i := range hot {
		leaf, _ := schema.Lookup(AttributeColumnPrefix + hot[i].attr)
		hot[i].index = leaf.ColumnIndex
	}
	return schema, hot
}

func kindNode(k attrKind) parquet.Node {
	switch k {
	case kindInt64:
		return parquet.Int(64)
	case kindDouble:
		return parquet.Leaf(parquet.DoubleType)
	case kindBool:
		return parquet.Leaf(parquet.BooleanType)
	case kindJSON:
		return parquet.JSON()
	}
	return parquet.String()
}

// EncodeParquet writes env as a Parquet file, compressed per the layout
// (snappy unless gzip or zstd is chosen).
func (l *Layout) EncodeParquet(env *busv1.Envelope) ([]byte, error) {
	schema, hot := l.ParquetSchema(env)
	var buf bytes.Buffer
	cfg, err := parquet.NewWriterConfig(schema, parquet.Compression(l.parquetCodec()),
		parquet.KeyValueMetadata("kollect.schemaVersion", env.SchemaVersion),
		parquet.KeyValueMetadata("kollect.checksum", env.Checksum),
		parquet.KeyValueMetadata("kollect.revision", strconv.FormatUint(env.Revision, 10)),
		parquet.KeyValueMetadata("kollect.generation", strconv.FormatInt(env.Generation, 10)),
		parquet.KeyValueMetadata("kollect.itemCount", strconv.Itoa(env.ItemCount)))
	if err != nil {
		return nil, fmt.Errorf("configure parquet writer: %w", err)
	}
	w := parquet.NewWriter(&buf, cfg)
	fixed := fixedIndexes(schema)
	batch := make([]parquet.Row, 0, min(parquetRowBatch, len(env.Items)))
	for i := range env.Items {
		r, err := parquetRow(env, &env.Items[i], fixed, hot, len(schema.Columns()))
		if err != nil {
			return nil, err
		}
		if batch = append(batch, r); len(batch) == cap(batch) || i == len(env.Items)-1 {
			if _, err := w.WriteRows(batch); err != nil {
				return nil, fmt.Errorf("write parquet rows: %w", err)
			}
			batch = batch[:0]
		}
	}
	if err := w.Close(); err != nil {
		return nil, fmt.Errorf("close parquet file: %w", err)
	}
	return buf.Bytes(), nil
}

func (l *Layout) parquetCodec() compress.Codec {
	switch l.Compression {
	case CompressionGzip:
		return &parquet.Gzip
	case CompressionZstd:
		return &parquet.Zstd
	}
	return &parquet.Snappy
}

// fixedIndexes maps each fixed column to its index in schema.
func fixedIndexes(schema *parquet.Schema) map[string]int {
	m := make(map[string]int, len(fixedColumns))
	for _, c := range fixedColumns {
		leaf, _ := schema.Lookup(c)
		m[c] = leaf.ColumnIndex
	}
	return m
}

// parquetRow builds the Parquet row of r.
func parquetRow(env *busv1.Envelope, r *busv1.Row, fixed map[string]int, hot []hotColumn, n int) (parquet.Row, error) {
	attrs, err := marshalJSON(r.Attributes)
	if err != nil {
		return nil, fmt.Errorf("encode attributes of row %s: %w", r.UID, err)
	}
	row := make(parquet.Row, n)
	str := func(col, v string) { row[fixed[col]] = parquet.ByteArrayValue([]byte(v)).Level(0, 0, fixed[col]) }
	str("cluster", env.Cluster)
	str("inventory_namespace", env.Inventory.Namespace)
	str("inventory_name", env.Inventory.Name)
	str("target_namespace", r.TargetNamespace)
	str("target_name", r.TargetName)
	str("namespace", r.Namespace)
	str("name", r.Name)
	str("uid", r.UID)
	str("group", r.Group)
	str("version", r.Version)
	str("kind", r.Kind)
	str("attributes", string(attrs))
	at := fixed["exported_at"]
	row[at] = parquet.Int64Value(env.ExportedAt.UTC().Truncate(time.Microsecond).UnixMicro()).Level(0, 0, at)
	for _, h := range hot {
		v, err := hotValue(h.kind, r.Attributes[h.attr])
		if err != nil {
			return nil, fmt.Errorf("encode attribute %s of row %s: %w", h.attr, r.UID, err)
		}
		if v.IsNull() {
			row[h.index] = v.Level(0, 0, h.index)
		} else {
			row[h.index] = v.Level(0, 1, h.index)
		}
	}
	return row, nil
}

// hotValue converts an attribute value to the column's kind; nil and a
// missing attribute are null.
func hotValue(k attrKind, v any) (parquet.Value, error) {
	if v == nil {
		return parquet.NullValue(), nil
	}
	switch k {
	case kindString:
		return parquet.ByteArrayValue([]byte(v.(string))), nil
	case kindBool:
		return parquet.BooleanValue(v.(bool)), nil
	case kindInt64:
		return parquet.Int64Value(toInt64(v)), nil
	case kindDouble:
		f, _ := number(v)
		return parquet.DoubleValue(f), nil
	}
	b, err := marshalJSON(v)
	return parquet.ByteArrayValue(b), err
}

// inferKind returns the one kind that holds every value of attribute a.
func inferKind(rows []busv1.Row, a string) attrKind {
	kind, seen := kindString, false
	for i := range rows {
		v := rows[i].Attributes[a]
		if v == nil {
			continue
		}
		k := valueKind(v)
		switch {
		case !seen:
			kind, seen = k, true
		case k == kind:
		case k == kindDouble && kind == kindInt64, k == kindInt64 && kind == kindDouble:
			kind = kindDouble
		default:
			return kindJSON
		}
	}
	return kind
}

func valueKind(v any) attrKind {
	switch v.(type) {
	case string:
		return kindString
	case bool:
		return kindBool
	case int, int8, int16, int32, int64, uint8, uint16, uint32:
		return kindInt64
	}
	if f, ok := number(v); ok {
		if f == math.Trunc(f) && math.Abs(f) < 1<<63 {
			return kindInt64
		}
		return kindDouble
	}
	return kindJSON
}

// toInt64 returns a whole number as an int64.
func toInt64(v any) int64 {
	switch v := v.(type) {
	case int:
		return int64(v)
	case int64:
		return v
	case json.Number:
		if i, err := v.Int64(); err == nil {
			return i
		}
	}
	f, _ := number(v)
	return int64(f)
}

// number returns v as a float64 when it is a number.
func number(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int8:
		return float64(v), true
	case int16:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case uint8:
		return float64(v), true
	case uint16:
		return float64(v), true
	case uint32:
		return float64(v), true
	case uint64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	}
	return 0, false
}

// marshalJSON is json.Marshal without HTML escaping, as the checksum's
// canonical JSON.
func marshalJSON(v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}
