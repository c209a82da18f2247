package s3

import (
	"context"
	"errors"
	"net/http"

	awshttp "github.com/aws/aws-sdk-go-v2/aws/transport/http"
	"github.com/aws/smithy-go"
	"kollect.dev/kollect/pkg/sink"
)

// permanentCodes are S3 error codes a retry cannot fix.
var permanentCodes = map[string]bool{
	"AccessDenied": true, "AllAccessDisabled": true, "InvalidAccessKeyId": true, "SignatureDoesNotMatch": true,
	"InvalidToken": true, "ExpiredToken": true, "AuthorizationHeaderMalformed": true,
	"NoSuchBucket": true, "InvalidBucketName": true, "PermanentRedirect": true, "AccountProblem": true,
	"InvalidObjectState": true, "UnauthorizedAccess": true, "InvalidArgument": true,
}

// classify wraps err from operation op on bucket (sink.Classify) as
// sink.Permanent when a retry cannot fix it: refused credentials, a
// missing bucket, an invalid request. Throttling, 5xx and network errors
// stay transient.
func classify(ctx context.Context, op, bucket string, err error) error {
	return sink.Classify(ctx, op+" bucket "+bucket, err, permanent)
}

// permanent reports an S3 error code or HTTP status no retry can fix.
func permanent(err error) bool {
	var ae smithy.APIError
	if errors.As(err, &ae) && permanentCodes[ae.ErrorCode()] {
		return true
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed:
			return true
		}
	}
	return false
}
