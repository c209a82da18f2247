package postgres

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"

	"github.com/jackc/pgx/v5/pgconn"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
)

// permanentCodes are the SQLSTATEs a retry cannot fix: refused
// credentials, a missing database, missing privileges, a table or column
// that is missing or does not match (in mode existing), and data the server
// refuses. Everything else (connection failures, 57P01 admin shutdown,
// 40001 and 40P01 serialization and deadlock, 53xxx resources) is
// transient.
var permanentCodes = map[string]string{
	"28P01": "the server refused the password",
	"28000": "the server refused the role (pg_hba.conf or role)",
	"3D000": "the database does not exist",
	"42501": "insufficient privilege",
	"42P10": "the table lacks the primary key of the contract",
	"21000": "the snapshot holds one row key twice",
}

// missingCodes are undefined schema, table and column: permanent in mode
// existing; in mode ensure the table is provisioned again on the retry.
var missingCodes = map[string]bool{"3F000": true, "42P01": true, "42703": true}

// classify wraps err with op (and the hint of a permanent SQLSTATE) and
// marks it permanent or transient (sink.Classify); the mode decides
// whether a missing table is permanent.
func classify(ctx context.Context, op string, err error, mode v1alpha1.ProvisioningMode) error {
	if hint, ok := permanentCodes[pgCode(err)]; ok {
		op += " (" + hint + ")"
	}
	return sink.Classify(ctx, op, err, func(err error) bool { return isPermanent(err, mode) })
}

func isPermanent(err error, mode v1alpha1.ProvisioningMode) bool {
	if sink.IsPermanent(err) || errors.Is(err, egress.ErrDenied) {
		return true
	}
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		if _, ok := permanentCodes[pgErr.Code]; ok {
			return true
		}
		if missingCodes[pgErr.Code] {
			return mode == v1alpha1.ProvisionExisting
		}
		// Class 22 is data exception: the same snapshot fails again.
		return len(pgErr.Code) == 5 && pgErr.Code[:2] == "22"
	}
	var (
		unknownCA *x509.UnknownAuthorityError
		invalid   x509.CertificateInvalidError
		hostname  x509.HostnameError
		verify    *tls.CertificateVerificationError
	)
	return errors.As(err, &unknownCA) || errors.As(err, &invalid) || errors.As(err, &hostname) || errors.As(err, &verify)
}

// pgCode returns the SQLSTATE of the server error err wraps, or "".
func pgCode(err error) string {
	var pgErr *pgconn.PgError
	if errors.As(err, &pgErr) {
		return pgErr.Code
	}
	return ""
}

// isMissing reports whether err is an undefined schema, table or column.
func isMissing(err error) bool {
	var pgErr *pgconn.PgError
	return errors.As(err, &pgErr) && missingCodes[pgErr.Code]
}
