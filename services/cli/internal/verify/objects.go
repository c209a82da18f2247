package verify

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"path"
	"slices"
	"strconv"
	"strings"

	"github.com/parquet-go/parquet-go"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// MaxObject bounds one revision file read from an object store.
const MaxObject = 1 << 30

// Store is the part of an object store Objects reads: S3 and GCS implement
// it (s3.go, gcs.go).
type Store interface {
	// List returns the keys of every object whose key starts with prefix.
	List(ctx context.Context, prefix string) ([]string, error)
	// Get returns the object at key; more than limit bytes is an error.
	Get(ctx context.Context, key string, limit int64) ([]byte, error)
}

// Objects reads the revisions an S3 or GCS sink with format parquet keeps:
// every revision=<n>.parquet file in the inventory's folder
// (docs/sinks/s3.md, "Past revisions"). Each file's key-value metadata
// records kollect.revision, kollect.checksum and, from this version on,
// kollect.previousChecksum; its rows are rebuilt from the fixed columns and
// the attributes JSON column.
type Objects struct {
	Store Store
	// URL names the bucket in messages: s3://bucket or gs://bucket.
	URL string
	// Prefix is the sink's spec.s3.prefix (or gcs.prefix), "" for none.
	Prefix    string
	Cluster   string
	Inventory busv1.NamespacedName
}

// Folder returns the key prefix of the inventory's Parquet folder.
func (o Objects) Folder() string {
	ns := o.Inventory.Namespace
	if ns == "" {
		ns = "_cluster"
	}
	f := fmt.Sprintf("inventory/part_cluster=%s/part_namespace=%s/part_inventory=%s/", o.Cluster, ns, o.Inventory.Name)
	if p := strings.Trim(o.Prefix, "/"); p != "" {
		f = p + "/" + f
	}
	return f
}

// Revisions implements the command's source.
func (o Objects) Revisions(ctx context.Context) ([]Revision, error) {
	folder := o.Folder()
	keys, err := o.Store.List(ctx, folder)
	if err != nil {
		return nil, fmt.Errorf("list %s/%s: %w", o.URL, folder, err)
	}
	slices.Sort(keys)
	var revs []Revision
	for _, key := range keys {
		name := path.Base(key)
		if path.Dir(key)+"/" != folder || !strings.HasPrefix(name, "revision=") || !strings.HasSuffix(name, ".parquet") {
			continue // _latest.json, files someone added
		}
		where := o.URL + "/" + key
		n, err := strconv.ParseUint(strings.TrimSuffix(strings.TrimPrefix(name, "revision="), ".parquet"), 10, 64)
		if err != nil {
			continue
		}
		body, err := o.Store.Get(ctx, key, MaxObject)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", where, err)
		}
		revs = append(revs, parquetRevision(n, body, where))
	}
	return revs, nil
}

// parquetRevision reads one revision file; a file that cannot be read, or
// whose metadata names another revision than its key, is a Problem.
func parquetRevision(n uint64, body []byte, where string) Revision {
	r := Revision{Revision: n, Where: where}
	f, err := parquet.OpenFile(bytes.NewReader(body), int64(len(body)))
	if err != nil {
		r.Problem = fmt.Sprintf("not a readable Parquet file: %v", err)
		return r
	}
	meta := map[string]string{}
	for _, kv := range f.Metadata().KeyValueMetadata {
		meta[kv.Key] = kv.Value
	}
	r.Checksum, r.PreviousChecksum = meta["kollect.checksum"], meta["kollect.previousChecksum"]
	if got := meta["kollect.revision"]; got != strconv.FormatUint(n, 10) {
		r.Problem = fmt.Sprintf("its metadata names revision %q, its key revision %d", got, n)
		return r
	}
	if r.Checksum == "" {
		r.Problem = "its metadata has no kollect.checksum"
		return r
	}
	if r.Rows, err = parquetRows(f); err != nil {
		r.Problem = err.Error()
	}
	return r
}

// parquetRows rebuilds the rows of f from its fixed columns and the
// attributes column (hot attr_ columns are copies and are not read).
func parquetRows(f *parquet.File) ([]busv1.Row, error) {
	fields := []string{"target_namespace", "target_name", "namespace", "name", "uid", "group", "version", "kind", "attributes"}
	index := map[int]int{} // column index to field
	for i, p := range f.Schema().Columns() {
		if len(p) == 1 {
			if j := slices.Index(fields, p[0]); j >= 0 {
				index[i] = j
			}
		}
	}
	if len(index) != len(fields) {
		return nil, fmt.Errorf("its schema lacks some of the columns %s", strings.Join(fields, ", "))
	}
	rows := []busv1.Row{}
	buf := make([]parquet.Row, 256)
	vals := make([]string, len(fields))
	for _, rg := range f.RowGroups() {
		rr := rg.Rows()
		for {
			n, err := rr.ReadRows(buf)
			for _, pr := range buf[:n] {
				clear(vals)
				for _, v := range pr {
					if j, ok := index[v.Column()]; ok && !v.IsNull() {
						vals[j] = string(v.ByteArray())
					}
				}
				row := busv1.Row{TargetNamespace: vals[0], TargetName: vals[1], Namespace: vals[2], Name: vals[3],
					UID: vals[4], Group: vals[5], Version: vals[6], Kind: vals[7]}
				if err := json.Unmarshal([]byte(vals[8]), &row.Attributes); err != nil {
					_ = rr.Close()
					return nil, fmt.Errorf("row %s/%s: its attributes are not JSON: %v", row.Namespace, row.Name, err)
				}
				rows = append(rows, row)
			}
			if errors.Is(err, io.EOF) {
				break
			}
			if err != nil {
				_ = rr.Close()
				return nil, fmt.Errorf("read its rows: %v", err)
			}
		}
		if err := rr.Close(); err != nil {
			return nil, fmt.Errorf("read its rows: %v", err)
		}
	}
	return rows, nil
}
