package objectstore

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/parquet-go/parquet-go"
	"github.com/parquet-go/parquet-go/compress"
	busv1 "kollect.dev/kollect/api/bus/v1"
)

// The fixed Parquet columns of docs/contract.md, all required. exported_at is a
// UTC timestamp in microseconds; attributes holds every attribute (hot ones
// included) as JSON. The file's key-value metadata carries the envelope
// header: kollect.schemaVersion, kollect.checksum, kollect.revision,
// kollect.generation, kollect.itemCount, and kollect.previousChecksum when
// the envelope has one.
var fixedColumns = []string{"cluster", "inventory_namespace", "inventory_name", "target_namespace",
	"target_name", "namespace", "name", "uid", "group", "version", "kind", "exported_at", "attributes"}

// AttributeColumnPrefix prefixes the column of each hot attribute.
const AttributeColumnPrefix = "attr_"

// parquetRowBatch bounds the rows buffered before they reach the writer.
const parquetRowBatch = 1024

// hotColumn is one typed attribute column.
type hotColumn struct {
	attr  string
	typ   ColumnType
	index int
}

// ParquetSchema returns the schema of env's Parquet file: the fixed columns
// and one optional attr_<name> column per hot attribute, of the type
// ColumnTypeOf gives it from the attribute's declared type in env (prev holds the types of the inventory's previous
// file, by column name). Columns are in name order (parquet.Group sorts its
// fields).
func (l *Layout) ParquetSchema(env *busv1.Envelope, prev map[string]ColumnType) (*parquet.Schema, []hotColumn) {
	g := parquet.Group{}
	for _, c := range fixedColumns {
		g[c] = parquet.String()
	}
	g["exported_at"] = parquet.Timestamp(parquet.Microsecond)
	g["attributes"] = parquet.JSON()
	hot := make([]hotColumn, 0, len(l.HotAttributes))
	for _, a := range l.HotAttributes {
		t := ColumnTypeOf(env.Items, a, env.AttributeTypes[a], prev[AttributeColumnPrefix+a])
		g[AttributeColumnPrefix+a] = parquet.Optional(t.node())
		hot = append(hot, hotColumn{attr: a, typ: t})
	}
	schema := parquet.NewSchema("kollect_inventory", g)
	for i := range hot {
		leaf, _ := schema.Lookup(AttributeColumnPrefix + hot[i].attr)
		hot[i].index = leaf.ColumnIndex
	}
	return schema, hot
}

// EncodeParquet writes env as a Parquet file, compressed per the layout
// (snappy unless gzip or zstd is chosen), and returns it with the types of
// its attr_ columns by column name, for the pointer. prev holds the types of
// the inventory's previous file (nil when none).
func (l *Layout) EncodeParquet(env *busv1.Envelope, prev map[string]ColumnType) ([]byte, map[string]ColumnType, error) {
	schema, hot := l.ParquetSchema(env, prev)
	var buf bytes.Buffer
	opts := []parquet.WriterOption{schema, parquet.Compression(l.parquetCodec()),
		parquet.KeyValueMetadata("kollect.schemaVersion", env.SchemaVersion),
		parquet.KeyValueMetadata("kollect.checksum", env.Checksum),
		parquet.KeyValueMetadata("kollect.revision", strconv.FormatUint(env.Revision, 10)),
		parquet.KeyValueMetadata("kollect.generation", strconv.FormatInt(env.Generation, 10)),
		parquet.KeyValueMetadata("kollect.itemCount", strconv.Itoa(env.ItemCount))}
	if env.PreviousChecksum != "" {
		// the chain kollect verify s3|gcs follows
		opts = append(opts, parquet.KeyValueMetadata("kollect.previousChecksum", env.PreviousChecksum))
	}
	cfg, err := parquet.NewWriterConfig(opts...)
	if err != nil {
		return nil, nil, fmt.Errorf("configure parquet writer: %w", err)
	}
	w := parquet.NewWriter(&buf, cfg)
	fixed := fixedIndexes(schema)
	batch := make([]parquet.Row, 0, min(parquetRowBatch, len(env.Items)))
	for i := range env.Items {
		r, err := parquetRow(env, &env.Items[i], fixed, hot, len(schema.Columns()))
		if err != nil {
			return nil, nil, err
		}
		if batch = append(batch, r); len(batch) == cap(batch) || i == len(env.Items)-1 {
			if _, err := w.WriteRows(batch); err != nil {
				return nil, nil, fmt.Errorf("write parquet rows: %w", err)
			}
			batch = batch[:0]
		}
	}
	if err := w.Close(); err != nil {
		return nil, nil, fmt.Errorf("close parquet file: %w", err)
	}
	types := make(map[string]ColumnType, len(hot))
	for _, h := range hot {
		types[AttributeColumnPrefix+h.attr] = h.typ
	}
	return buf.Bytes(), types, nil
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
		v, err := h.typ.value(r.Attributes[h.attr])
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
