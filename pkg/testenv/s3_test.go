package testenv_test

import (
	"bytes"
	"errors"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"

	"kollect.dev/kollect/pkg/testenv"
)

func TestS3PutGetAndWrongSecret(t *testing.T) {
	srv := timed(t, "versitygw", func() *testenv.S3 { return testenv.StartS3(t) })
	srv.CreateBucket(t, "inventory")
	ctx := t.Context()

	client := s3Client(t, srv, srv.SecretKey)
	body := []byte(`{"pods":1}`)
	if _, err := client.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("inventory"), Key: aws.String("exports/pods.json"), Body: bytes.NewReader(body),
	}); err != nil {
		t.Fatalf("put object: %v", err)
	}
	out, err := client.GetObject(ctx, &s3.GetObjectInput{Bucket: aws.String("inventory"), Key: aws.String("exports/pods.json")})
	if err != nil {
		t.Fatalf("get object: %v", err)
	}
	got, err := io.ReadAll(out.Body)
	out.Body.Close()
	if err != nil || !bytes.Equal(got, body) {
		t.Fatalf("object = %q (read error %v), want %q", got, err, body)
	}

	bad := s3Client(t, srv, "not-the-secret")
	_, err = bad.PutObject(ctx, &s3.PutObjectInput{
		Bucket: aws.String("inventory"), Key: aws.String("exports/evil.json"), Body: strings.NewReader("x"),
	})
	var status interface{ HTTPStatusCode() int }
	if !errors.As(err, &status) || status.HTTPStatusCode() != http.StatusForbidden {
		t.Fatalf("put with a wrong secret: err = %v, want HTTP 403", err)
	}

	if err := srv.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	requireClosed(t, strings.TrimPrefix(srv.Endpoint, "http://"))
}

func s3Client(t *testing.T, srv *testenv.S3, secret string) *s3.Client {
	t.Helper()
	cfg, err := config.LoadDefaultConfig(t.Context(),
		config.WithRegion(srv.Region),
		config.WithCredentialsProvider(credentials.NewStaticCredentialsProvider(srv.AccessKey, secret, "")),
		config.WithRetryMaxAttempts(1),
	)
	if err != nil {
		t.Fatalf("aws config: %v", err)
	}
	return s3.NewFromConfig(cfg, func(o *s3.Options) {
		o.BaseEndpoint = aws.String(srv.Endpoint)
		o.UsePathStyle = true
	})
}
