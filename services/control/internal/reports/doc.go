// Package reports keeps the latest status report of every service about
// every Kollect object, read from the bus's status stream, and tells the
// control reconcilers which object a new report is about.
//
// It owns reading the stream and the in-memory index of reports; it does not
// interpret them (the reconcilers fold them into status) and never writes to
// the bus.
package reports
