// Package partstest reads back what an event sink (kafka, nats) published
// for one inventory, for the sinktest conformance suite: the last complete
// envelope, with the parts of a split one joined in order. Each backend
// supplies only the inventory's messages, in publish order. Only tests
// import it.
package partstest
