package mongodb

import (
	"context"
	"errors"
	"fmt"

	"go.mongodb.org/mongo-driver/v2/mongo"
	"go.mongodb.org/mongo-driver/v2/x/mongo/driver/topology"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// codeUnauthorized answers an operation the user may not run.
const codeUnauthorized = 13

// permanentCodes are the server error codes a retry cannot fix.
var permanentCodes = map[int]string{
	codeUnauthorized: "Unauthorized",
	18:               "AuthenticationFailed",
	8000:             "AtlasError (bad credentials on Atlas)",
	10334:            "BSONObjectTooLarge",
}

// classify wraps err from operation op (sink.Classify): refused
// credentials, authorization, documents the server can never store and
// addresses the egress policy denies are sink.Permanent, anything else
// (network errors, server selection timeouts, elections) is transient.
func classify(ctx context.Context, op string, err error) error {
	if cause := selectionCause(err); cause != nil && ctx.Err() == nil {
		// The server selection error wraps only its timeout; the cause is
		// the servers' last error.
		return sink.Permanent(fmt.Errorf("%s: %w", op, cause))
	}
	return sink.Classify(ctx, op, err, permanent)
}

// permanent reports whether err carries a permanent server code.
func permanent(err error) bool {
	if sink.IsPermanent(err) {
		return true
	}
	var se mongo.ServerError
	if errors.As(err, &se) {
		for code := range permanentCodes {
			if se.HasErrorCode(code) {
				return true
			}
		}
	}
	return false
}

// selectionCause returns the last error of a server that failed
// permanently (an address the policy denies, refused credentials) when err
// is a server selection failure, else nil.
func selectionCause(err error) error {
	var sel topology.ServerSelectionError
	if !errors.As(err, &sel) {
		return nil
	}
	for _, srv := range sel.Desc.Servers {
		if srv.LastError != nil && (errors.Is(srv.LastError, egress.ErrDenied) || permanent(srv.LastError)) {
			return srv.LastError
		}
	}
	return nil
}
