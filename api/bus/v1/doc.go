// Package busv1 holds the messages Kollect services exchange over the internal
// NATS JetStream bus: compiled config entries (written by control), row entries
// (written by the collector), snapshot events with their envelope and delta
// (written by the aggregator), status reports (written by every service),
// export state, connection-test requests and replies, and dead letters.
//
// Every type is plain data serialised as JSON with lowerCamel field names and
// pinned by golden files in testdata. A message carries full state, the
// generation it was derived from and, where it describes content, a checksum,
// so that consumers are level-based and idempotent.
//
// busv1 does not name subjects, streams or buckets (package pkg/bus does) and
// does not decode user specs: Profile, Target, Scope and sink specs travel as
// raw JSON that consumers decode into the api/v1alpha1 types.
//
// Compatibility: fields are only ever added. A change that alters the meaning
// of an existing field needs a new package version (busv2).
package busv1
