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

	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// partSize is the size of the parts of a streamed upload: the memory a
// streamed put holds (S3 takes parts of at least 5 MiB, but the last).
const partSize = 8 << 20

// PutStream uploads body: in one PutObject when it fits in a part, else as
// a multipart upload of partSize parts, completed with If-Match or
// If-None-Match: * when cond asks for them (as Put), and aborted when it
// fails.
func (b *bucket) PutStream(ctx context.Context, key string, body io.Reader, contentType, contentEncoding string,
	cond objectstore.Condition) (objectstore.Info, error) {
	part := make([]byte, partSize)
	n, err := io.ReadFull(body, part)
	if errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) {
		return b.Put(ctx, key, part[:n], contentType, contentEncoding, cond)
	}
	if err != nil {
		return objectstore.Info{}, fmt.Errorf("put object %s in bucket %s: %w", key, b.name, err)
	}
	in := &s3.CreateMultipartUploadInput{Bucket: &b.name, Key: &key, ContentType: &contentType}
	if contentEncoding != "" {
		in.ContentEncoding = &contentEncoding
	}
	up, err := b.client.CreateMultipartUpload(ctx, in)
	if err != nil {
		return objectstore.Info{}, classify(ctx, "start the upload of "+key+" to", b.name, err)
	}
	info, err := b.uploadParts(ctx, key, up.UploadId, body, part, n, cond)
	if err != nil {
		_, _ = b.client.AbortMultipartUpload(context.WithoutCancel(ctx), &s3.AbortMultipartUploadInput{
			Bucket: &b.name, Key: &key, UploadId: up.UploadId})
	}
	return info, err
}

// uploadParts uploads part[:n] and the rest of body, then completes the
// upload.
func (b *bucket) uploadParts(ctx context.Context, key string, id *string, body io.Reader, part []byte, n int,
	cond objectstore.Condition) (objectstore.Info, error) {
	var (
		parts []types.CompletedPart
		size  int64
		num   int32
	)
	for n > 0 {
		num++
		out, err := b.client.UploadPart(ctx, &s3.UploadPartInput{Bucket: &b.name, Key: &key, UploadId: id,
			PartNumber: aws.Int32(num), Body: bytes.NewReader(part[:n]), ContentLength: aws.Int64(int64(n))})
		if err != nil {
			return objectstore.Info{}, classify(ctx, fmt.Sprintf("upload part %d of %s to", num, key), b.name, err)
		}
		parts = append(parts, types.CompletedPart{ETag: out.ETag, PartNumber: aws.Int32(num)})
		size += int64(n)
		var rerr error
		n, rerr = io.ReadFull(body, part)
		if rerr != nil && !errors.Is(rerr, io.EOF) && !errors.Is(rerr, io.ErrUnexpectedEOF) {
			return objectstore.Info{}, fmt.Errorf("put object %s in bucket %s: %w", key, b.name, rerr)
		}
	}
	in := &s3.CompleteMultipartUploadInput{Bucket: &b.name, Key: &key, UploadId: id,
		MultipartUpload: &types.CompletedMultipartUpload{Parts: parts}}
	switch {
	case b.unconditional.Load():
	case cond.Absent:
		in.IfNoneMatch = aws.String("*")
	case cond.Version != "":
		in.IfMatch = aws.String(cond.Version)
	}
	out, err := b.client.CompleteMultipartUpload(ctx, in)
	if (in.IfMatch != nil || in.IfNoneMatch != nil) && isNotImplemented(err) {
		b.unconditional.Store(true)
		in.IfMatch, in.IfNoneMatch = nil, nil
		out, err = b.client.CompleteMultipartUpload(ctx, in)
	}
	if isPreconditionFailed(err) {
		return objectstore.Info{}, fmt.Errorf("put object %s in bucket %s: %w", key, b.name, objectstore.ErrPrecondition)
	}
	if err != nil {
		return objectstore.Info{}, classify(ctx, "complete the upload of "+key+" to", b.name, err)
	}
	return objectstore.Info{Size: size, Version: aws.ToString(out.ETag)}, nil
}
