package s3

import (
	"errors"
	"fmt"
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

// classify wraps err from operation op on bucket as sink.Permanent when a
// retry cannot fix it: refused credentials, a missing bucket, an invalid
// request. Throttling, 5xx and network errors stay transient.
func classify(op, bucket string, err error) error {
	if err == nil {
		return nil
	}
	err = fmt.Errorf("%s bucket %s: %w", op, bucket, err)
	var ae smithy.APIError
	if errors.As(err, &ae) && permanentCodes[ae.ErrorCode()] {
		return sink.Permanent(err)
	}
	var re *awshttp.ResponseError
	if errors.As(err, &re) {
		switch re.HTTPStatusCode() {
		case http.StatusUnauthorized, http.StatusForbidden, http.StatusMethodNotAllowed:
			return sink.Permanent(err)
		}
	}
	return err
}
