package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"sync/atomic"

	"github.com/aws/aws-sdk-go-v2/aws"
	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"github.com/aws/smithy-go"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// bucket is one S3 bucket; it implements objectstore.Bucket and
// objectstore.Prober.
type bucket struct {
	client *s3.Client
	name   string
	region string
	mode   v1alpha1.ProvisioningMode
	// unconditional is set once the store answered a conditional put
	// with 501 Not Implemented (an S3-compatible store without
	// conditional writes): puts are then unfenced.
	unconditional atomic.Bool
}

// Put uploads body in one request, with If-Match or If-None-Match: * when
// cond asks for them.
func (b *bucket) Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string,
	cond objectstore.Condition) (objectstore.Info, error) {
	in := &s3.PutObjectInput{Bucket: &b.name, Key: &key, Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: &contentType}
	if contentEncoding != "" {
		in.ContentEncoding = &contentEncoding
	}
	switch {
	case b.unconditional.Load():
	case cond.Absent:
		in.IfNoneMatch = aws.String("*")
	case cond.Version != "":
		in.IfMatch = aws.String(cond.Version)
	}
	out, err := b.client.PutObject(ctx, in)
	if (in.IfMatch != nil || in.IfNoneMatch != nil) && isNotImplemented(err) {
		b.unconditional.Store(true)
		in.IfMatch, in.IfNoneMatch = nil, nil
		in.Body = bytes.NewReader(body)
		out, err = b.client.PutObject(ctx, in)
	}
	if isPreconditionFailed(err) {
		return objectstore.Info{}, fmt.Errorf("put object %s in bucket %s: %w", key, b.name, objectstore.ErrPrecondition)
	}
	if err != nil {
		return objectstore.Info{}, classify(ctx, "put object "+key+" in", b.name, err)
	}
	return objectstore.Info{Size: int64(len(body)), Version: aws.ToString(out.ETag)}, nil
}

// Get downloads the object at key, reading at most limit+1 bytes.
func (b *bucket) Get(ctx context.Context, key string, limit int64) ([]byte, objectstore.Info, bool, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.name, Key: &key})
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return nil, objectstore.Info{}, false, nil
	}
	if err != nil {
		return nil, objectstore.Info{}, false, classify(ctx, "get object "+key+" from", b.name, err)
	}
	defer out.Body.Close()
	if aws.ToInt64(out.ContentLength) > limit {
		return nil, objectstore.Info{}, false, sink.Permanent(objectstore.TooLarge(key, limit))
	}
	body, err := io.ReadAll(io.LimitReader(out.Body, limit+1))
	if err != nil {
		return nil, objectstore.Info{}, false, fmt.Errorf("read object %s from bucket %s: %w", key, b.name, err)
	}
	if int64(len(body)) > limit {
		return nil, objectstore.Info{}, false, sink.Permanent(objectstore.TooLarge(key, limit))
	}
	return body, objectstore.Info{Size: int64(len(body)), Version: aws.ToString(out.ETag)}, true, nil
}

// Stat heads the object at key.
func (b *bucket) Stat(ctx context.Context, key string) (objectstore.Info, bool, error) {
	out, err := b.client.HeadObject(ctx, &s3.HeadObjectInput{Bucket: &b.name, Key: &key})
	if isNotFound(err) {
		return objectstore.Info{}, false, nil
	}
	if err != nil {
		return objectstore.Info{}, false, classify(ctx, "head object "+key+" in", b.name, err)
	}
	return objectstore.Info{Size: aws.ToInt64(out.ContentLength), Version: aws.ToString(out.ETag)}, true, nil
}

// Delete removes the object at key; S3 answers success for an absent one.
func (b *bucket) Delete(ctx context.Context, key string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.name, Key: &key})
	return classify(ctx, "delete object "+key+" from", b.name, err)
}

// List returns every key under prefix.
func (b *bucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.name, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classify(ctx, "list "+prefix+" in", b.name, err)
		}
		for _, o := range page.Contents {
			keys = append(keys, aws.ToString(o.Key))
		}
	}
	return keys, nil
}

// Probe checks that the bucket exists with HeadBucket; in provisioning mode
// ensure it creates a missing bucket, in mode existing that is a permanent
// error naming the bucket.
func (b *bucket) Probe(ctx context.Context) error {
	_, err := b.client.HeadBucket(ctx, &s3.HeadBucketInput{Bucket: &b.name})
	if err == nil || !isNotFound(err) {
		return classify(ctx, "head", b.name, err)
	}
	if b.mode == v1alpha1.ProvisionExisting {
		return sink.Permanent(fmt.Errorf("bucket %s does not exist (provisioning mode existing)", b.name))
	}
	in := &s3.CreateBucketInput{Bucket: &b.name}
	if b.region != defaultRegion {
		in.CreateBucketConfiguration = &types.CreateBucketConfiguration{
			LocationConstraint: types.BucketLocationConstraint(b.region)}
	}
	_, err = b.client.CreateBucket(ctx, in)
	var owned *types.BucketAlreadyOwnedByYou
	if errors.As(err, &owned) {
		return nil
	}
	return classify(ctx, "create", b.name, err)
}

// isPreconditionFailed reports whether err is S3's answer to a failed
// If-Match or If-None-Match (412, or 409 ConditionalRequestConflict when a
// concurrent conditional write is in flight).
func isPreconditionFailed(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && (ae.ErrorCode() == "PreconditionFailed" || ae.ErrorCode() == "ConditionalRequestConflict") {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusPreconditionFailed
}

// isNotImplemented reports a store's refusal of a feature it lacks (501).
func isNotImplemented(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && ae.ErrorCode() == "NotImplemented" {
		return true
	}
	var re *awshttp.ResponseError
	return errors.As(err, &re) && re.HTTPStatusCode() == http.StatusNotImplemented
}

func isNotFound(err error) bool {
	var nf *types.NotFound
	var nsb *types.NoSuchBucket
	return errors.As(err, &nf) || errors.As(err, &nsb)
}
