// Package lease reads and writes the single aggregator lease of earlier
// releases: a key in a NATS KV bucket whose value names the holder and an
// expiry, written only with compare-and-set (Create when absent, Update at
// the revision read). Those releases ran one active aggregator, elected
// with it. The aggregator is now sharded (pkg/shard), and Retire keeps the
// key held by every sharded replica, so that an aggregator of an earlier
// release never becomes active beside them during a rolling update, and
// the sharded replicas start only once the earlier release's leader is
// gone.
//
// The lease only keeps replicas apart. Safety against two writers does not
// rest on it: the publisher's expected-last-sequence check fences every
// snapshot publish.
package lease
