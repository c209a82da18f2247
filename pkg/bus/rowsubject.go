package bus

import busv1 "kollect.dev/kollect/api/bus/v1"

// RowPutSubject returns the subject a write to the row of k in BucketRows is
// published on ($KV.<bucket>.<key>), for writers that publish to the bucket's
// stream directly instead of through the KeyValue API; a delete is the same
// subject with the KV-Operation: DEL header.
func RowPutSubject(k busv1.RowKey) string {
	return "$KV." + BucketRows + "." + RowKey(k)
}
