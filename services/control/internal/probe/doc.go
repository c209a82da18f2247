// Package probe asks a sink family's exporter to test one sink's connection,
// over core NATS request-reply on the family's connection-test subject.
//
// It owns the request and the decoding of the reply; it links no sink SDK
// and never touches a sink itself.
package probe
