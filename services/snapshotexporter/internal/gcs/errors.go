package gcs

import (
	"context"
	"errors"
	"net/http"

	"cloud.google.com/go/auth"
	"cloud.google.com/go/storage"
	"golang.org/x/oauth2"
	"google.golang.org/api/googleapi"
	"kollect.dev/kollect/pkg/sink"
)

// classify wraps err from operation op on bucket (sink.Classify) as
// sink.Permanent when a retry cannot fix it: refused credentials (401,
// 403, a token endpoint's 4xx), a missing bucket, an invalid request. 429,
// 5xx and network errors stay transient.
func classify(ctx context.Context, op, bucket string, err error) error {
	return sink.Classify(ctx, op+" bucket "+bucket, err, permanent)
}

// permanent reports a missing bucket or a 4xx answer other than 408 and
// 429.
func permanent(err error) bool {
	if errors.Is(err, storage.ErrBucketNotExist) {
		return true
	}
	status := statusOf(err)
	return status >= 400 && status < 500 && status != http.StatusTooManyRequests && status != http.StatusRequestTimeout
}

// statusOf returns the HTTP status of the API or token-endpoint answer err
// carries, or 0.
func statusOf(err error) int {
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		return ge.Code
	}
	var ae *auth.Error
	if errors.As(err, &ae) && ae.Response != nil {
		return ae.Response.StatusCode
	}
	var re *oauth2.RetrieveError
	if errors.As(err, &re) && re.Response != nil {
		return re.Response.StatusCode
	}
	return 0
}
