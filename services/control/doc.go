// Package control is the control service: it owns the kollect.dev custom
// resources. It reconciles every kind, applies KollectScope policy, writes
// the compiled config the other services read from the bus, folds their
// status reports into the resources' status (it is the only writer of
// status), and asks exporters to test sink connections.
//
// It never reads rows or snapshots and never links a sink SDK.
package control
