// Package cli is the `kollect` command line tool: `collect` runs selection
// and extraction in-process against kubeconfig contexts with no operator and
// no bus, and `validate` checks a folder of custom resources offline. It
// reuses the packages the services use, so a CR means the same thing to both.
package cli
