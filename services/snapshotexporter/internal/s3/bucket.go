package s3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	"github.com/aws/aws-sdk-go-v2/service/s3/types"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
)

// bucket is one S3 bucket; it implements objectstore.Bucket and
// objectstore.Prober.
type bucket struct {
	client *s3.Client
	name   string
	region string
	mode   v1alpha1.ProvisioningMode
}

// Put uploads body in one request.
func (b *bucket) Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string) error {
	in := &s3.PutObjectInput{Bucket: &b.name, Key: &key, Body: bytes.NewReader(body),
		ContentLength: aws.Int64(int64(len(body))), ContentType: &contentType}
	if contentEncoding != "" {
		in.ContentEncoding = &contentEncoding
	}
	_, err := b.client.PutObject(ctx, in)
	return classify("put object "+key+" in", b.name, err)
}

// Get downloads the object at key.
func (b *bucket) Get(ctx context.Context, key string) ([]byte, bool, error) {
	out, err := b.client.GetObject(ctx, &s3.GetObjectInput{Bucket: &b.name, Key: &key})
	var nsk *types.NoSuchKey
	if errors.As(err, &nsk) {
		return nil, false, nil
	}
	if err != nil {
		return nil, false, classify("get object "+key+" from", b.name, err)
	}
	defer out.Body.Close()
	body, err := io.ReadAll(out.Body)
	if err != nil {
		return nil, false, fmt.Errorf("read object %s from bucket %s: %w", key, b.name, err)
	}
	return body, true, nil
}

// Delete removes the object at key; S3 answers success for an absent one.
func (b *bucket) Delete(ctx context.Context, key string) error {
	_, err := b.client.DeleteObject(ctx, &s3.DeleteObjectInput{Bucket: &b.name, Key: &key})
	return classify("delete object "+key+" from", b.name, err)
}

// List returns every key under prefix.
func (b *bucket) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	p := s3.NewListObjectsV2Paginator(b.client, &s3.ListObjectsV2Input{Bucket: &b.name, Prefix: &prefix})
	for p.HasMorePages() {
		page, err := p.NextPage(ctx)
		if err != nil {
			return nil, classify("list "+prefix+" in", b.name, err)
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
		return classify("head", b.name, err)
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
	return classify("create", b.name, err)
}

func isNotFound(err error) bool {
	var nf *types.NotFound
	var nsb *types.NoSuchBucket
	return errors.As(err, &nf) || errors.As(err, &nsb)
}
