package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// bucket is one GCS bucket; it implements objectstore.Bucket and
// objectstore.Prober.
type bucket struct {
	client  *storage.Client
	handle  *storage.BucketHandle
	name    string
	project string
	mode    v1alpha1.ProvisioningMode
}

// Put uploads body in one request (no resumable session).
func (b *bucket) Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string) error {
	w := b.handle.Object(key).NewWriter(ctx)
	w.ContentType, w.ContentEncoding = contentType, contentEncoding
	w.ChunkSize = 0
	if _, err := w.Write(body); err != nil {
		_ = w.Close()
		return classify("put object "+key+" in", b.name, err)
	}
	return classify("put object "+key+" in", b.name, w.Close())
}

// Get downloads the object at key.
func (b *bucket) Get(ctx context.Context, key string) ([]byte, bool, error) {
	r, err := b.handle.Object(key).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify("get object "+key+" from", b.name, err)
	}
	defer r.Close()
	body, err := io.ReadAll(r)
	if err != nil {
		return nil, false, fmt.Errorf("read object %s from bucket %s: %w", key, b.name, err)
	}
	return body, true, nil
}

// Delete removes the object at key; an absent one is not an error.
func (b *bucket) Delete(ctx context.Context, key string) error {
	err := b.handle.Object(key).Delete(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil
	}
	return classify("delete object "+key+" from", b.name, err)
}

// List returns every key under prefix.
func (b *bucket) List(ctx context.Context, prefix string) ([]string, error) {
	q := &storage.Query{Prefix: prefix}
	if err := q.SetAttrSelection([]string{"Name"}); err != nil {
		return nil, err
	}
	var keys []string
	it := b.handle.Objects(ctx, q)
	for {
		o, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return keys, nil
		}
		if err != nil {
			return nil, classify("list "+prefix+" in", b.name, err)
		}
		keys = append(keys, o.Name)
	}
}

// Probe checks that the bucket exists; in provisioning mode ensure it
// creates a missing bucket in the sink's project, in mode existing that is
// a permanent error naming the bucket.
func (b *bucket) Probe(ctx context.Context) error {
	_, err := b.handle.Attrs(ctx)
	if !errors.Is(err, storage.ErrBucketNotExist) {
		return classify("read", b.name, err)
	}
	if b.mode == v1alpha1.ProvisionExisting {
		return sink.Permanent(fmt.Errorf("bucket %s does not exist (provisioning mode existing)", b.name))
	}
	if b.project == "" {
		return sink.Permanent(fmt.Errorf("bucket %s does not exist and no project is known to create it in: "+
			"add ?project=<id> to the endpoint", b.name))
	}
	err = b.handle.Create(ctx, b.project, nil)
	if statusOf(err) == http.StatusConflict {
		return nil // created meanwhile
	}
	return classify("create", b.name, err)
}
