package azureblob

import (
	"bytes"
	"context"
	"fmt"
	"io"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// blobContainer is one Azure Blob Storage container; it implements
// objectstore.Bucket and objectstore.Prober. Objects are block blobs and
// their version is the blob's ETag.
type blobContainer struct {
	client *container.Client
	name   string // account/container, for messages
	mode   v1alpha1.ProvisioningMode
}

// Put uploads body as a block blob in one request (Put Blob), with
// If-Match or If-None-Match: * when cond asks for them.
func (c *blobContainer) Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string,
	cond objectstore.Condition) (objectstore.Info, error) {
	headers := &blob.HTTPHeaders{BlobContentType: &contentType}
	if contentEncoding != "" {
		headers.BlobContentEncoding = &contentEncoding
	}
	opts := &blockblob.UploadOptions{HTTPHeaders: headers}
	switch {
	case cond.Absent:
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfNoneMatch: to.Ptr(azcore.ETagAny)}}
	case cond.Version != "":
		opts.AccessConditions = &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: to.Ptr(azcore.ETag(cond.Version))}}
	}
	out, err := c.client.NewBlockBlobClient(key).Upload(ctx, streaming.NopCloser(bytes.NewReader(body)), opts)
	if conditionFailed(err, cond) {
		return objectstore.Info{}, fmt.Errorf("put blob %s in container %s: %w", key, c.name, objectstore.ErrPrecondition)
	}
	if err != nil {
		return objectstore.Info{}, classify(ctx, "put blob "+key+" in", c.name, err)
	}
	return objectstore.Info{Size: int64(len(body)), Version: etag(out.ETag)}, nil
}

// Get downloads the blob at key, reading at most limit+1 bytes.
func (c *blobContainer) Get(ctx context.Context, key string, limit int64) ([]byte, objectstore.Info, bool, error) {
	out, err := c.client.NewBlobClient(key).DownloadStream(ctx, nil)
	if blobNotFound(err) {
		return nil, objectstore.Info{}, false, nil
	}
	if err != nil {
		return nil, objectstore.Info{}, false, classify(ctx, "get blob "+key+" from", c.name, err)
	}
	defer out.Body.Close()
	if out.ContentLength != nil && *out.ContentLength > limit {
		return nil, objectstore.Info{}, false, sink.Permanent(objectstore.TooLarge(key, limit))
	}
	body, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, objectstore.Info{}, false, classify(ctx, "read blob "+key+" from", c.name, err)
	}
	if int64(len(body)) > limit {
		return nil, objectstore.Info{}, false, sink.Permanent(objectstore.TooLarge(key, limit))
	}
	return body, objectstore.Info{Size: int64(len(body)), Version: etag(out.ETag)}, true, nil
}

// Stat reads the blob's properties.
func (c *blobContainer) Stat(ctx context.Context, key string) (objectstore.Info, bool, error) {
	out, err := c.client.NewBlobClient(key).GetProperties(ctx, nil)
	if blobNotFound(err) {
		return objectstore.Info{}, false, nil
	}
	if err != nil {
		return objectstore.Info{}, false, classify(ctx, "read properties of blob "+key+" in", c.name, err)
	}
	size := int64(0)
	if out.ContentLength != nil {
		size = *out.ContentLength
	}
	return objectstore.Info{Size: size, Version: etag(out.ETag)}, true, nil
}

// Delete removes the blob at key with its snapshots; an absent one is not
// an error.
func (c *blobContainer) Delete(ctx context.Context, key string) error {
	_, err := c.client.NewBlobClient(key).Delete(ctx, &blob.DeleteOptions{DeleteSnapshots: to.Ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	if blobNotFound(err) {
		return nil
	}
	return classify(ctx, "delete blob "+key+" from", c.name, err)
}

// List returns the name of every blob under prefix.
func (c *blobContainer) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	p := c.client.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{Prefix: &prefix})
	for p.More() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classify(ctx, "list "+prefix+" in", c.name, err)
		}
		for _, b := range page.Segment.BlobItems {
			if b.Name != nil {
				keys = append(keys, *b.Name)
			}
		}
	}
	return keys, nil
}

// Probe checks that the container exists by listing one blob (what a SAS
// with list permission may do; reading container properties needs more);
// in provisioning mode ensure it creates a missing container, in mode
// existing that is a permanent error naming it.
func (c *blobContainer) Probe(ctx context.Context) error {
	one := int32(1)
	_, err := c.client.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{MaxResults: &one}).NextPage(ctx)
	if !bloberror.HasCode(err, bloberror.ContainerNotFound) {
		return classify(ctx, "list", c.name, err)
	}
	if c.mode == v1alpha1.ProvisionExisting {
		return sink.Permanent(fmt.Errorf("container %s does not exist (provisioning mode existing)", c.name))
	}
	_, err = c.client.Create(ctx, nil)
	if bloberror.HasCode(err, bloberror.ContainerAlreadyExists) {
		return nil // created meanwhile
	}
	return classify(ctx, "create", c.name, err)
}

func etag(e *azcore.ETag) string {
	if e == nil {
		return ""
	}
	return string(*e)
}
