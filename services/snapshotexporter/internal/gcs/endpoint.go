package gcs

import (
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/pkg/sink"
)

// endpoint is a parsed spec.endpoint.
type endpoint struct {
	// url is the base URL of a custom server; empty for Google Cloud
	// Storage.
	url string
	// bucket and prefix locate the objects.
	bucket, prefix string
	// project is the ?project= query parameter, if any.
	project string
}

// parseEndpoint parses gs://bucket[/prefix] and
// http(s)://host[:port]/bucket[/prefix], each with an optional ?project=.
func parseEndpoint(raw string) (endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, invalidEndpoint(raw, "not a URL")
	}
	if u.User != nil {
		return endpoint{}, invalidEndpoint(raw, "it must not carry credentials")
	}
	e := endpoint{project: u.Query().Get("project")}
	for k := range u.Query() {
		if k != "project" {
			return endpoint{}, invalidEndpoint(raw, "the only query parameter is project")
		}
	}
	path := strings.Trim(u.Path, "/")
	switch u.Scheme {
	case "gs":
		e.bucket, e.prefix = u.Host, path
	case "http", "https":
		if u.Host == "" {
			return endpoint{}, invalidEndpoint(raw, "no host")
		}
		e.url = u.Scheme + "://" + u.Host
		e.bucket, e.prefix, _ = strings.Cut(path, "/")
	default:
		return endpoint{}, invalidEndpoint(raw, "want gs://bucket[/prefix] or http(s)://host/bucket[/prefix]")
	}
	if e.bucket == "" {
		return endpoint{}, invalidEndpoint(raw, "no bucket")
	}
	return e, nil
}

func invalidEndpoint(raw, why string) error {
	return sink.Permanent(fmt.Errorf("invalid sink spec: endpoint %q: %s", raw, why))
}
