package azureblob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// blockSize is the size of a staged block of a streamed blob: one block is
// buffered (outside the Go heap: the SDK's buffers are mapped memory) while
// it is sent.
const blockSize = 4 << 20

// PutStream stores body as a block blob, with Put's condition and errors
// (objectstore.StreamPutter): a body that fits in one block is uploaded in
// one request (Put Blob), a larger one as staged blocks of blockSize
// committed together (Put Block List, which carries the condition), so that
// a full write of a JSON or NDJSON layout never holds the blob.
func (c *blobContainer) PutStream(ctx context.Context, key string, body io.Reader, contentType, contentEncoding string,
	cond objectstore.Condition) (objectstore.Info, error) {
	first := make([]byte, blockSize)
	n, err := io.ReadFull(body, first)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return c.Put(ctx, key, first[:n], contentType, contentEncoding, cond)
	}
	if err != nil {
		return objectstore.Info{}, fmt.Errorf("put blob %s in container %s: %w", key, c.name, err)
	}
	headers := &blob.HTTPHeaders{BlobContentType: &contentType}
	if contentEncoding != "" {
		headers.BlobContentEncoding = &contentEncoding
	}
	opts := &blockblob.UploadStreamOptions{BlockSize: blockSize, Concurrency: 1, HTTPHeaders: headers}
	switch {
	case cond.Absent:
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}
	case cond.Version != "":
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(cond.Version))}}
	}
	src := &counter{r: io.MultiReader(bytes.NewReader(first), body)}
	out, err := c.client.NewBlockBlobClient(key).UploadStream(ctx, src, opts)
	if conditionFailed(err, cond) {
		return objectstore.Info{}, fmt.Errorf("put blob %s in container %s: %w", key, c.name, objectstore.ErrPrecondition)
	}
	if err != nil {
		return objectstore.Info{}, classify(ctx, "put blob "+key+" in", c.name, err)
	}
	return objectstore.Info{Size: src.n, Version: etag(out.ETag)}, nil
}

// counter counts the bytes read through it.
type counter struct {
	r io.Reader
	n int64
}

func (c *counter) Read(p []byte) (int, error) {
	n, err := c.r.Read(p)
	c.n += int64(n)
	return n, err
}
