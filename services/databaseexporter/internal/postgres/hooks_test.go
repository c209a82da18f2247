package postgres

// WithoutMerge makes k merge re-exports as it does on servers before
// PostgreSQL 15 (UPDATE and INSERT instead of MERGE), whatever its server.
func WithoutMerge(k *Sink) { k.noMerge = true }
