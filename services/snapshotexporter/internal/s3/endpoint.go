package s3

import (
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// defaultRegion is the region when nothing else names one.
const defaultRegion = "us-east-1"

// parseEndpoint parses s3://bucket[/prefix] and
// http(s)://host[:port]/bucket[/prefix], each with an optional ?region=
// (objectstore.Endpoint.Param).
func parseEndpoint(raw string) (objectstore.Endpoint, error) {
	return objectstore.ParseEndpoint(raw, "s3", "region")
}

// resolveRegion picks the region: the endpoint's ?region=, the Secret's
// region key, the SDK's default configuration, then us-east-1.
func resolveRegion(query, secret, sdkDefault string) string {
	for _, r := range []string{query, secret, sdkDefault} {
		if r != "" {
			return r
		}
	}
	return defaultRegion
}
