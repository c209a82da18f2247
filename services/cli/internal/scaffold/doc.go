// Package scaffold writes a first set of Kollect resources for one kind of
// object: a Profile, the RBAC and Target that collect it in one namespace, the
// sinks named on the command line and an Inventory bound to them (kollect
// init). It renders text only: the caller writes or validates it.
package scaffold
