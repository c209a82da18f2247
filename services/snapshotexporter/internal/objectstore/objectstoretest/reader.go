package objectstoretest

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"strconv"
	"strings"

	"github.com/klauspost/compress/zstd"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/sink/sinktest"
)

// Getter reads one object; found is false when it is absent.
type Getter func(ctx context.Context, key string) (body []byte, found bool, err error)

// Reader reads the projection of an object-store sink with the default
// pathTemplate back through Get. With Delete it implements
// sinktest.Damager.
type Reader struct {
	// Get reads objects with the peer's SDK.
	Get Getter
	// Delete removes one object with the peer's SDK.
	Delete func(ctx context.Context, key string) error
	// Prefix is the endpoint's prefix ("" for the bucket root).
	Prefix string
	// Format is json, ndjson or parquet; Compression none, gzip or zstd.
	Format, Compression string
}

// Read implements sinktest.Reader.
func (r Reader) Read(ctx context.Context, cluster string, inv busv1.NamespacedName) (sinktest.Projection, bool, error) {
	ns := inv.Namespace
	if ns == "" {
		ns = "_cluster"
	}
	if r.Format == "parquet" {
		return r.readParquet(ctx, fmt.Sprintf("inventory/part_cluster=%s/part_namespace=%s/part_inventory=%s/_latest.json", cluster, ns, inv.Name))
	}
	ext := "." + r.Format + map[string]string{"gzip": ".gz", "zstd": ".zst"}[r.Compression]
	key := r.key("inventory/" + ns + "/" + inv.Name + ext)
	body, found, err := r.Get(ctx, key)
	if err != nil || !found {
		return sinktest.Projection{}, false, err
	}
	if body, err = Decompress(key, body); err != nil {
		return sinktest.Projection{}, false, err
	}
	env, err := DecodeDocument(r.Format, body)
	if err != nil {
		return sinktest.Projection{}, false, fmt.Errorf("decode %s: %w", key, err)
	}
	return sinktest.Projection{Revision: env.Revision, Checksum: env.Checksum, Rows: env.Items}, true, nil
}

// Damage deletes the inventory's data object (for Parquet the file its
// pointer names), leaving the state in place.
func (r Reader) Damage(ctx context.Context, cluster string, inv busv1.NamespacedName) error {
	if r.Delete == nil {
		return fmt.Errorf("the reader has no Delete")
	}
	ns := inv.Namespace
	if ns == "" {
		ns = "_cluster"
	}
	if r.Format != "parquet" {
		ext := "." + r.Format + map[string]string{"gzip": ".gz", "zstd": ".zst"}[r.Compression]
		return r.Delete(ctx, r.key("inventory/"+ns+"/"+inv.Name+ext))
	}
	pointer := r.key(fmt.Sprintf("inventory/part_cluster=%s/part_namespace=%s/part_inventory=%s/_latest.json", cluster, ns, inv.Name))
	body, found, err := r.Get(ctx, pointer)
	if err != nil || !found {
		return fmt.Errorf("read pointer %s (found %t): %v", pointer, found, err)
	}
	var latest struct {
		Key string `json:"key"`
	}
	if err := json.Unmarshal(body, &latest); err != nil {
		return fmt.Errorf("decode pointer %s: %w", pointer, err)
	}
	return r.Delete(ctx, latest.Key)
}

func (r Reader) key(k string) string {
	if r.Prefix == "" {
		return k
	}
	return r.Prefix + "/" + k
}

func (r Reader) readParquet(ctx context.Context, pointer string) (sinktest.Projection, bool, error) {
	body, found, err := r.Get(ctx, r.key(pointer))
	if err != nil || !found {
		return sinktest.Projection{}, false, err
	}
	var latest struct {
		Revision uint64 `json:"revision"`
		Checksum string `json:"checksum"`
		Key      string `json:"key"`
	}
	if err := json.Unmarshal(body, &latest); err != nil {
		return sinktest.Projection{}, false, fmt.Errorf("decode pointer %s: %w", pointer, err)
	}
	file, found, err := r.Get(ctx, latest.Key)
	if err != nil {
		return sinktest.Projection{}, false, err
	}
	if !found {
		return sinktest.Projection{}, false, fmt.Errorf("pointer %s names %s, which is absent", pointer, latest.Key)
	}
	pf, err := ReadParquet(file)
	if err != nil {
		return sinktest.Projection{}, false, fmt.Errorf("read %s: %w", latest.Key, err)
	}
	if got := pf.Metadata["kollect.checksum"]; got != latest.Checksum {
		return sinktest.Projection{}, false, fmt.Errorf("%s has checksum %s, its pointer %s", latest.Key, got, latest.Checksum)
	}
	if got := pf.Metadata["kollect.revision"]; got != strconv.FormatUint(latest.Revision, 10) {
		return sinktest.Projection{}, false, fmt.Errorf("%s has revision %s, its pointer %d", latest.Key, got, latest.Revision)
	}
	return sinktest.Projection{Revision: latest.Revision, Checksum: latest.Checksum, Rows: pf.Rows}, true, nil
}

// Decompress undoes the compression named by key's extension.
func Decompress(key string, body []byte) ([]byte, error) {
	switch {
	case strings.HasSuffix(key, ".gz"):
		zr, err := gzip.NewReader(bytes.NewReader(body))
		if err != nil {
			return nil, fmt.Errorf("gunzip %s: %w", key, err)
		}
		return io.ReadAll(zr)
	case strings.HasSuffix(key, ".zst"):
		zr, err := zstd.NewReader(nil)
		if err != nil {
			return nil, err
		}
		defer zr.Close()
		return zr.DecodeAll(body, nil)
	}
	return body, nil
}

// DecodeDocument parses a JSON envelope or an NDJSON object (header line,
// then rows) into an envelope.
func DecodeDocument(format string, body []byte) (busv1.Envelope, error) {
	var env busv1.Envelope
	if format == "json" {
		err := json.Unmarshal(body, &env)
		return env, err
	}
	sc := bufio.NewScanner(bytes.NewReader(body))
	sc.Buffer(nil, 64<<20)
	if !sc.Scan() {
		return env, fmt.Errorf("ndjson object has no header line")
	}
	if err := json.Unmarshal(sc.Bytes(), &env); err != nil {
		return env, fmt.Errorf("ndjson header: %w", err)
	}
	if env.Items != nil {
		return env, fmt.Errorf("ndjson header carries items")
	}
	env.Items = []busv1.Row{}
	for sc.Scan() {
		var r busv1.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return env, fmt.Errorf("ndjson row %d: %w", len(env.Items)+1, err)
		}
		env.Items = append(env.Items, r)
	}
	return env, sc.Err()
}
