// Package restmap maps kinds to API resources (and kubectl-style resource
// arguments to kinds) from an API server's discovery documents, fetching each
// group version's document at most once.
//
// It reads the documents with the rest.Config's HTTP client and
// encoding/json instead of k8s.io/client-go/discovery: that package links
// client-go's scheme, and with it the Go types of every built-in API group,
// which made the everyday kollect binary about 20 MB larger and its resident
// set correspondingly bigger (docs/cli.md). It does not cache across runs
// and does not read aggregated discovery.
package restmap
