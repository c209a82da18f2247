// Package publish puts snapshot events on the bus: inline when the event fits
// a bus message, else with the envelope in the envelope object store and a
// reference in the event (dropping the delta last, when even that does not
// fit). Every publish carries Nats-Msg-Id, so a retried publish is stored once,
// and the expected last sequence of the inventory's subject, so that two
// writers can never both extend one inventory's revision sequence.
//
// publish does not decide what or when to publish: that is the engine's.
package publish
