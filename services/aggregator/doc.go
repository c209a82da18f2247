// Package aggregator is the Kollect service that turns the collector's rows
// into one canonical snapshot per inventory and publishes it on the bus: on a
// material change after a short settle window, per binding at its effective
// interval when unchanged, and once more on deletion when the inventory's
// deletionPolicy asks for it. One replica is active at a time (a lease in a
// NATS KV bucket); a restarted or newly elected replica rebuilds from the bus
// and continues each inventory's revision sequence from its snapshot subject.
//
// It never talks to the Kubernetes API and links no sink SDK.
package aggregator
