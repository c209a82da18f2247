package sink

import (
	"context"
	"errors"
	"fmt"
)

// Classify wraps err from operation op ("op: err"; err alone when op is
// empty) and marks it Permanent when permanent(err) says no retry can fix
// it, or when err already is. When ctx is done the context's error joins
// the chain (so a cancelled write reports context.Canceled) and the error
// stays transient: the write stopped, it did not fail. The wrap chain is
// kept whole, so that predicates classify by error type (errors.Is,
// errors.As), never by message text. A nil permanent marks nothing more.
// Classify(ctx, op, nil, p) is nil.
func Classify(ctx context.Context, op string, err error, permanent func(error) bool) error {
	if err == nil {
		return nil
	}
	if ctxErr := ctx.Err(); ctxErr != nil {
		if !errors.Is(err, ctxErr) {
			err = fmt.Errorf("%w (%w)", ctxErr, err)
		}
		return wrapOp(op, err)
	}
	wrapped := wrapOp(op, err)
	if IsPermanent(err) || (permanent != nil && permanent(err)) {
		return Permanent(wrapped)
	}
	return wrapped
}

func wrapOp(op string, err error) error {
	if op == "" {
		return err
	}
	return fmt.Errorf("%s: %w", op, err)
}
