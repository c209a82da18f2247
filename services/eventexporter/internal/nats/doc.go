// Package nats is the nats event sink backend: it publishes each inventory
// snapshot's envelope (or its parts) to a subject of an external NATS
// server with JetStream, waiting for the stream's acknowledgement, with a
// Nats-Msg-Id so that the server drops duplicates. It owns the message
// layout (subject, headers, message id), the stream's provisioning and the
// classification of NATS errors.
//
// It does not own envelope splitting or the high-water mark (package parts),
// the exporter runtime (pkg/exporter), Kollect's own bus (pkg/bus: this
// backend talks to a NATS the user names, never to the bus), nor the
// address policy and TLS settings (pkg/egress), which it applies to every
// connection.
//
// # Message id
//
// Nats-Msg-Id is "<cluster>/<namespace>/<inventory>/<checksum>/<revision>",
// plus "/<partIndex>/<partTotal>" for a part and "/replay/<exportedAt>" for
// a replayed snapshot. docs/contract.md names the first four segments; the
// revision keeps a return to earlier content (checksum A, then B, then A
// again within the duplicate window) from being dropped as a duplicate of
// the first A, and a replay is always stored.
//
// # Restarts
//
// The high-water mark is kept in memory per inventory. The subject is
// shared by every inventory, so the last message of the subject does not
// tell a new sink what it last sent for one inventory: a new sink (a
// restart, a changed config) sends again what it is given, and the stream
// drops a repeat within its duplicate window (two minutes when Kollect
// creates it); after the window a repeat is stored again, with the same
// message id and checksum (docs/sinks/nats.md lists every case).
//
// # Drift
//
// Drift checks that a stream captures the subject and, for an export this
// sink published, that the stream still holds its last message at the
// sequence the server acknowledged (limits retention only). A Repair
// write publishes the envelope again under "<id>/repair/<exportedAt>", so
// that the duplicate window does not drop it.
package nats
