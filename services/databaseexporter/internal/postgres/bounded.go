package postgres

import (
	"io"

	"github.com/jackc/pgx/v5/pgproto3"
)

// maxServerMessageBytes bounds one message of the server's. The sink reads
// its state row, counts and single rows, never a bulk answer in one
// message, so a server (or an endpoint posing as one) cannot make the
// exporter, shared by every tenant, allocate up to pgproto3's default of
// 1 GiB per message: the connection fails instead.
const maxServerMessageBytes = 64 << 20

// boundedFrontend is pgconn's frontend with maxServerMessageBytes.
func boundedFrontend(r io.Reader, w io.Writer) *pgproto3.Frontend {
	f := pgproto3.NewFrontend(r, w)
	f.SetMaxBodyLen(maxServerMessageBytes)
	return f
}
