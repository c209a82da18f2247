package gcs

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
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

// Put uploads body in one request (no resumable session), with
// ifGenerationMatch when cond asks for it (0 for an absent object).
func (b *bucket) Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string,
	cond objectstore.Condition) (objectstore.Info, error) {
	o := b.handle.Object(key)
	switch {
	case cond.Absent:
		o = o.If(storage.Conditions{DoesNotExist: true})
	case cond.Version != "":
		gen, err := strconv.ParseInt(cond.Version, 10, 64)
		if err != nil {
			return objectstore.Info{}, fmt.Errorf("put object %s in bucket %s: generation %q is not a number", key, b.name, cond.Version)
		}
		o = o.If(storage.Conditions{GenerationMatch: gen})
	}
	w := o.NewWriter(ctx)
	w.ContentType, w.ContentEncoding = contentType, contentEncoding
	w.ChunkSize = 0
	if _, err := w.Write(body); err != nil {
		_ = w.Close()
		return objectstore.Info{}, b.putError(ctx, key, err)
	}
	if err := w.Close(); err != nil {
		return objectstore.Info{}, b.putError(ctx, key, err)
	}
	return infoOf(w.Attrs()), nil
}

// PutStream uploads body in one request as Put does, streaming it: with
// no chunk size the writer holds no copy of the object.
func (b *bucket) PutStream(ctx context.Context, key string, body io.Reader, contentType, contentEncoding string,
	cond objectstore.Condition) (objectstore.Info, error) {
	o, err := b.conditional(key, cond)
	if err != nil {
		return objectstore.Info{}, err
	}
	wctx, cancel := context.WithCancel(ctx)
	defer cancel()
	w := o.NewWriter(wctx)
	w.ContentType, w.ContentEncoding = contentType, contentEncoding
	w.ChunkSize = 0
	if _, err := io.Copy(w, body); err != nil {
		cancel() // the upload is abandoned, not completed
		_ = w.Close()
		return objectstore.Info{}, b.putError(ctx, key, err)
	}
	if err := w.Close(); err != nil {
		return objectstore.Info{}, b.putError(ctx, key, err)
	}
	return infoOf(w.Attrs()), nil
}

// conditional returns the handle of key with cond's precondition.
func (b *bucket) conditional(key string, cond objectstore.Condition) (*storage.ObjectHandle, error) {
	o := b.handle.Object(key)
	switch {
	case cond.Absent:
		o = o.If(storage.Conditions{DoesNotExist: true})
	case cond.Version != "":
		gen, err := strconv.ParseInt(cond.Version, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("put object %s in bucket %s: generation %q is not a number", key, b.name, cond.Version)
		}
		o = o.If(storage.Conditions{GenerationMatch: gen})
	}
	return o, nil
}

func (b *bucket) putError(ctx context.Context, key string, err error) error {
	if statusOf(err) == http.StatusPreconditionFailed {
		return fmt.Errorf("put object %s in bucket %s: %w", key, b.name, objectstore.ErrPrecondition)
	}
	return classify(ctx, "put object "+key+" in", b.name, err)
}

// Get downloads the object at key, reading at most limit+1 bytes.
func (b *bucket) Get(ctx context.Context, key string, limit int64) ([]byte, objectstore.Info, bool, error) {
	r, err := b.handle.Object(key).NewReader(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil, objectstore.Info{}, false, nil
	}
	if err != nil {
		return nil, objectstore.Info{}, false, classify(ctx, "get object "+key+" from", b.name, err)
	}
	defer r.Close()
	if r.Attrs.Size > limit {
		return nil, objectstore.Info{}, false, sink.Permanent(objectstore.TooLarge(key, limit))
	}
	body, err := io.ReadAll(io.LimitReader(r, limit+1))
	if err != nil {
		return nil, objectstore.Info{}, false, fmt.Errorf("read object %s from bucket %s: %w", key, b.name, err)
	}
	if int64(len(body)) > limit {
		return nil, objectstore.Info{}, false, sink.Permanent(objectstore.TooLarge(key, limit))
	}
	return body, objectstore.Info{Size: int64(len(body)), Version: strconv.FormatInt(r.Attrs.Generation, 10)}, true, nil
}

// Stat reads the object's metadata.
func (b *bucket) Stat(ctx context.Context, key string) (objectstore.Info, bool, error) {
	attrs, err := b.handle.Object(key).Attrs(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return objectstore.Info{}, false, nil
	}
	if err != nil {
		return objectstore.Info{}, false, classify(ctx, "read object "+key+" in", b.name, err)
	}
	return infoOf(attrs), true, nil
}

func infoOf(a *storage.ObjectAttrs) objectstore.Info {
	if a == nil {
		return objectstore.Info{}
	}
	return objectstore.Info{Size: a.Size, Version: strconv.FormatInt(a.Generation, 10)}
}

// Delete removes the object at key; an absent one is not an error.
func (b *bucket) Delete(ctx context.Context, key string) error {
	err := b.handle.Object(key).Delete(ctx)
	if errors.Is(err, storage.ErrObjectNotExist) {
		return nil
	}
	return classify(ctx, "delete object "+key+" from", b.name, err)
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
			return nil, classify(ctx, "list "+prefix+" in", b.name, err)
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
		return classify(ctx, "read", b.name, err)
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
	return classify(ctx, "create", b.name, err)
}
