package azureblob

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// classify wraps err from operation op on container (sink.Classify) as
// sink.Permanent when a retry cannot fix it: refused credentials (401,
// 403, the identity provider refusing the workload identity), a missing
// container, an invalid request. 408, 409, 429, 5xx and network errors
// stay transient, and so does any error once ctx is done (its
// context.Canceled or DeadlineExceeded joins the chain). The message is
// one line: the SDK's multi-line answer dump is replaced by status and
// error code (redact), and a request URL's query (a SAS token) is cut.
func classify(ctx context.Context, op, container string, err error) error {
	if err == nil {
		return nil
	}
	return sink.Classify(ctx, op+" container "+container, redact(err), permanent)
}

// permanent is the backend's predicate of errors a retry cannot fix, by
// error type: the SDK's NonRetriable marker and the answer's status.
func permanent(err error) bool {
	// The SDK marks errors a retry cannot fix NonRetriable: an identity
	// that is not configured, and refused token requests (whose status
	// decides below: a 5xx from the identity provider is transient).
	var nonRetriable interface{ NonRetriable() }
	var authFailed *azidentity.AuthenticationFailedError
	if errors.As(err, &nonRetriable) && !errors.As(err, &authFailed) {
		return true
	}
	status := statusOf(err)
	return status >= 400 && status < 500 && status != http.StatusRequestTimeout &&
		status != http.StatusConflict && status != http.StatusTooManyRequests
}

// statusOf returns the HTTP status of the storage or identity-provider
// answer err carries, or 0.
func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	var af *azidentity.AuthenticationFailedError
	if errors.As(err, &af) && af.RawResponse != nil {
		return af.RawResponse.StatusCode
	}
	return 0
}

// conditionFailed reports whether err is the answer to a failed
// If-Match (412 ConditionNotMet) or If-None-Match: * (409
// BlobAlreadyExists, or 412).
func conditionFailed(err error, cond objectstore.Condition) bool {
	if err == nil || cond == (objectstore.Condition{}) {
		return false
	}
	return statusOf(err) == http.StatusPreconditionFailed || bloberror.HasCode(err, bloberror.ConditionNotMet) ||
		(cond.Absent && bloberror.HasCode(err, bloberror.BlobAlreadyExists))
}

// blobNotFound reports a missing blob (not a missing container, which is
// an error). A HEAD answer has no body; its code is in a header, which
// the SDK reads too.
func blobNotFound(err error) bool {
	return bloberror.HasCode(err, bloberror.BlobNotFound)
}

// redact replaces the SDK's response error by a one-line summary that
// still unwraps to it, and cuts the query (which may hold a SAS token) of
// a failed request's URL.
func redact(err error) error {
	var ue *url.Error
	if errors.As(err, &ue) {
		if u, perr := url.Parse(ue.URL); perr == nil && u.RawQuery != "" {
			u.RawQuery = "redacted"
			ue.URL = u.String()
		}
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return &responseError{re: re}
	}
	return err
}

// responseError is a storage answer summarised on one line.
type responseError struct{ re *azcore.ResponseError }

func (e *responseError) Error() string {
	msg := fmt.Sprintf("HTTP %d", e.re.StatusCode)
	if e.re.ErrorCode != "" {
		msg += " " + e.re.ErrorCode
	}
	return msg
}

func (e *responseError) Unwrap() error { return e.re }
