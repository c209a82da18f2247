package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"syscall"
	"testing"

	"github.com/jackc/pgx/v5/pgconn"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

func TestClassify(t *testing.T) {
	pg := func(code string) error { return &pgconn.PgError{Code: code, Message: "m"} }
	for _, c := range []struct {
		name      string
		err       error
		mode      v1alpha1.ProvisioningMode
		permanent bool
	}{
		{"a refused password is permanent", pg("28P01"), v1alpha1.ProvisionEnsure, true},
		{"a refused role is permanent", pg("28000"), v1alpha1.ProvisionEnsure, true},
		{"a missing database is permanent", pg("3D000"), v1alpha1.ProvisionEnsure, true},
		{"insufficient privilege is permanent", pg("42501"), v1alpha1.ProvisionEnsure, true},
		{"a table without the primary key is permanent", pg("42P10"), v1alpha1.ProvisionExisting, true},
		{"refused data is permanent", pg("22P05"), v1alpha1.ProvisionEnsure, true},
		{"an undefined table is permanent in mode existing", pg("42P01"), v1alpha1.ProvisionExisting, true},
		{"an undefined table is retried in mode ensure", pg("42P01"), v1alpha1.ProvisionEnsure, false},
		{"admin shutdown is retried", pg("57P01"), v1alpha1.ProvisionEnsure, false},
		{"a serialization failure is retried", pg("40001"), v1alpha1.ProvisionEnsure, false},
		{"a deadlock is retried", pg("40P01"), v1alpha1.ProvisionEnsure, false},
		{"too many connections is retried", pg("53300"), v1alpha1.ProvisionEnsure, false},
		{"a refused connection is retried", &net.OpError{Op: "dial", Err: syscall.ECONNREFUSED}, v1alpha1.ProvisionEnsure, false},
		{"a reset connection is retried", fmt.Errorf("read: %w", syscall.ECONNRESET), v1alpha1.ProvisionEnsure, false},
		{"an unexpected EOF is retried", io.ErrUnexpectedEOF, v1alpha1.ProvisionEnsure, false},
		{"a denied address is permanent", fmt.Errorf("dial: %w", egress.ErrDenied), v1alpha1.ProvisionEnsure, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			err := classify(context.Background(), "write", fmt.Errorf("wrapped: %w", c.err), c.mode)
			if got := sink.IsPermanent(err); got != c.permanent {
				t.Fatalf("classify(%v) permanent = %v, want %v", c.err, got, c.permanent)
			}
			if !errors.Is(err, c.err) {
				t.Fatalf("classify(%v) = %v no longer wraps the cause", c.err, err)
			}
		})
	}
}

func TestClassifyKeepsTheContextsError(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	err := classify(ctx, "write", pg28P01(), v1alpha1.ProvisionEnsure)
	if !errors.Is(err, context.Canceled) || sink.IsPermanent(err) {
		t.Fatalf("classify with a cancelled context = %v, want a transient error wrapping context.Canceled", err)
	}
}

func pg28P01() error { return &pgconn.PgError{Code: "28P01"} }
