// Package lease elects the one active aggregator replica with a lease held in
// a NATS KV bucket: a key whose value names the holder and an expiry, written
// only with compare-and-set (Create when absent, Update at the revision read),
// so two replicas can never both believe they hold it for longer than the
// clock skew between them. The holder renews at a third of the TTL and stops
// its work when a renewal fails; a replica that stops cleanly releases the key
// so another takes over at once.
//
// The lease only keeps a second replica idle. Safety against two writers does
// not rest on it: the publisher's expected-last-sequence check fences every
// snapshot publish.
package lease
