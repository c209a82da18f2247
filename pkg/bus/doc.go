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
// connection: services own their message loops. It does not define message
// payloads (api/bus/v1 does).
package bus
