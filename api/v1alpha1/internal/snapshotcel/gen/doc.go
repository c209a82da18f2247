// Command gen writes the CEL rules of package snapshotcel as XValidation
// markers into the Go file named by its argument (go generate runs it in
// api/v1alpha1 on snapshotsink_types.go).
package main
