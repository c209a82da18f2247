// Package reference renders the user reference of every kollect.dev kind,
// one Markdown page each, from the generated CustomResourceDefinitions: the
// field descriptions are the Go doc comments of api/v1alpha1, so the
// reference, `kubectl explain` and the API server's validation can never
// disagree. `make generate` rewrites docs/reference; a test fails when the
// pages are stale.
package reference
