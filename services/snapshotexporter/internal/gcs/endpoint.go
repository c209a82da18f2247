package gcs

import (
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// parseEndpoint parses gs://bucket[/prefix] and
// http(s)://host[:port]/bucket[/prefix], each with an optional ?project=
// (objectstore.Endpoint.Param).
func parseEndpoint(raw string) (objectstore.Endpoint, error) {
	return objectstore.ParseEndpoint(raw, "gs", "project")
}
