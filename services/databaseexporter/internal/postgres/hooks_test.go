package postgres

import busv1 "kollect.dev/kollect/api/bus/v1"

// WithoutMerge makes k merge re-exports as it does on servers before
// PostgreSQL 15 (UPDATE and INSERT instead of MERGE), whatever its server.
func WithoutMerge(k *Sink) { k.noMerge = true }

// ClientRowHash returns the rows hash the exporter computes for rows as it
// copies them (hashSum), and false when it leaves the sum to the server.
func ClientRowHash(rows []busv1.Row) (string, bool) {
	sum := newHashSum()
	src := newRowSource(rows)
	for src.Next() {
		r := src.Row()
		sum.add(&r.cols, r.attrs)
	}
	return sum.value()
}

// WithStreamBuffer makes k buffer at most n bytes of a streamed full write
// into an empty scope before it goes through staging.
func WithStreamBuffer(k *Sink, n int) { k.bufferBytes = n }
