// Package reconcile holds control's reconcilers, one per kollect.dev kind.
// Each resolves its references, validates with the shared compilers, applies
// the namespace's KollectScope (or the KollectClusterScope), writes the
// compiled config entry to the bus's config bucket (and deletes it when the
// object goes or becomes invalid), and folds the services' status reports
// into the object's status. Control is the only writer of status.
//
// It does not read or write rows or snapshots, and never touches a sink:
// connection tests go to the family's exporter through package probe.
package reconcile
