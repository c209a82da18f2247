// Package bus owns every name on Kollect's internal NATS JetStream bus and how
// it is provisioned: subjects, streams, durable consumers, queue groups, KV
// buckets and their keys, the object store and its object names; the
// reversible token encoding that puts Kubernetes names into subjects and keys;
// the parse functions that invert every builder; Provision, which creates or
// updates all of it idempotently; and Catalogue, which lists every name with
// its purpose and settings and from which docs/bus.md is rendered.
//
// Nothing else in Kollect builds a subject, stream, consumer, bucket or key
// name: services call the builders here and decode the messages of
// api/bus/v1.
//
// bus does not publish, consume or watch anything itself, and holds no
// connection: services own their message loops. Incarnation only reads the
// identity of streams, so that the services tell a reset bus the same way. It does not define message
// payloads (api/bus/v1 does).
//
// # Token encoding
//
// A token is one dot-separated element of a subject or of a
// KV key. NATS forbids '.', '*', '>' and whitespace in a subject token, and KV
// keys allow only [-/_=.a-zA-Z0-9]; a token uses only [-_=a-zA-Z0-9], valid in
// both, so one encoded name serves as a subject token and as a key element.
//
//   - ASCII letters, digits and '-' stand for themselves: a DNS-1123 label is
//     its own token.
//   - '.' becomes '_', so a DNS-1123 subdomain stays readable: my.app is
//     my_app.
//   - Every other byte, '_' and '=' included, becomes '=' followed by two
//     upper-case hex digits: a_b is a=5Fb.
//   - The empty string, a cluster-scoped object's namespace, is EmptyToken.
//
// Every string round-trips, and the encoding is canonical: DecodeToken accepts
// exactly the outputs of EncodeToken.
package bus
