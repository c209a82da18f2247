package s3

import (
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/pkg/sink"
)

// defaultRegion is the region when nothing else names one.
const defaultRegion = "us-east-1"

// endpoint is a parsed spec.endpoint.
type endpoint struct {
	// url is the base URL of a custom (path-style) server; empty for AWS.
	url string
	// bucket and prefix locate the objects.
	bucket, prefix string
	// region is the ?region= query parameter, if any.
	region string
}

// parseEndpoint parses s3://bucket[/prefix] and
// http(s)://host[:port]/bucket[/prefix], each with an optional ?region=.
func parseEndpoint(raw string) (endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, invalidEndpoint(raw, "not a URL")
	}
	if u.User != nil {
		return endpoint{}, invalidEndpoint(raw, "it must not carry credentials")
	}
	var e endpoint
	e.region = u.Query().Get("region")
	for k := range u.Query() {
		if k != "region" {
			return endpoint{}, invalidEndpoint(raw, "the only query parameter is region")
		}
	}
	path := strings.Trim(u.Path, "/")
	switch u.Scheme {
	case "s3":
		e.bucket, e.prefix = u.Host, path
	case "http", "https":
		if u.Host == "" {
			return endpoint{}, invalidEndpoint(raw, "no host")
		}
		e.url = u.Scheme + "://" + u.Host
		e.bucket, e.prefix, _ = strings.Cut(path, "/")
	default:
		return endpoint{}, invalidEndpoint(raw, "want s3://bucket[/prefix] or http(s)://host/bucket[/prefix]")
	}
	if e.bucket == "" {
		return endpoint{}, invalidEndpoint(raw, "no bucket")
	}
	return e, nil
}

func invalidEndpoint(raw, why string) error {
	return sink.Permanent(fmt.Errorf("invalid sink spec: endpoint %q: %s", raw, why))
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
