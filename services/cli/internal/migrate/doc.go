// Package migrate finds the established spellings of kollect.dev/v1alpha1
// objects (the spellings of the operator that used the API group before
// Kollect) and rewrites them to Kollect's canonical ones, on the YAML node
// tree so that comments and key order are kept.
//
// It is the one place that knows the spellings: `kollect validate` reports
// what Detect finds as warnings, `kollect migrate` applies the rewrites.
// It works on YAML only and does not depend on the API types, so a file is
// migrated the same way whatever the API package accepts.
package migrate
