package bigquery

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"strings"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/googleapi"

	"kollect.dev/kollect/pkg/sink"
)

// retryableReasons are error reasons that a later attempt can overcome.
var retryableReasons = []string{"backendError", "internalError", "rateLimitExceeded", "quotaExceeded",
	"jobRateLimitExceeded", "jobBackendError", "jobInternalError", "tableUnavailable"}

// classify wraps err from operation op (sink.Classify): refused
// credentials or permissions, invalid requests and addresses the egress
// policy denies are sink.Permanent; 5xx, rate limits, network errors and
// transaction conflicts are transient.
func classify(ctx context.Context, op string, err error) error {
	return sink.Classify(ctx, op, err, permanent)
}

// permanent reports whether a retry of err cannot succeed.
func permanent(err error) bool {
	if sink.IsPermanent(err) {
		return true
	}
	var ge *googleapi.Error
	if errors.As(err, &ge) {
		reason := ""
		if len(ge.Errors) > 0 {
			reason = ge.Errors[0].Reason
		}
		switch ge.Code {
		case http.StatusUnauthorized:
			return true
		case http.StatusForbidden, http.StatusBadRequest:
			return !slices.Contains(retryableReasons, reason) && !conflict(ge.Message)
		}
		return false
	}
	var be *bigquery.Error
	if errors.As(err, &be) {
		switch be.Reason {
		case "accessDenied", "invalid", "invalidQuery", "notFound", "duplicate":
			return !conflict(be.Message)
		}
	}
	return false
}

// conflict reports whether a message is BigQuery's answer to concurrent
// transactions or DML on one table, which a retry resolves.
func conflict(msg string) bool {
	msg = strings.ToLower(msg)
	return strings.Contains(msg, "concurrent") || strings.Contains(msg, "aborted")
}
