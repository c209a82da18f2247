package objectstore

import (
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/sink"
)

// Endpoint is a parsed spec.endpoint of an object-store sink.
type Endpoint struct {
	// URL is the base URL of a custom (path-style) server; empty for the
	// cloud provider's own service.
	URL string
	// Bucket and Prefix locate the objects.
	Bucket, Prefix string
	// Param is the value of the one query parameter the store accepts
	// (S3's region, GCS's project), if given.
	Param string
}

// ParseEndpoint parses <scheme>://bucket[/prefix] and
// http(s)://host[:port]/bucket[/prefix], each with an optional ?<param>=.
// An invalid endpoint is a permanent error naming it.
func ParseEndpoint(raw, scheme, param string) (Endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return Endpoint{}, invalidEndpoint(raw, "not a URL")
	}
	if u.User != nil {
		return Endpoint{}, invalidEndpoint(raw, "it must not carry credentials")
	}
	e := Endpoint{Param: u.Query().Get(param)}
	for k := range u.Query() {
		if k != param {
			return Endpoint{}, invalidEndpoint(raw, "the only query parameter is "+param)
		}
	}
	path := strings.Trim(u.Path, "/")
	switch u.Scheme {
	case scheme:
		e.Bucket, e.Prefix = u.Host, path
	case "http", "https":
		if u.Host == "" {
			return Endpoint{}, invalidEndpoint(raw, "no host")
		}
		e.URL = u.Scheme + "://" + u.Host
		e.Bucket, e.Prefix, _ = strings.Cut(path, "/")
	default:
		return Endpoint{}, invalidEndpoint(raw, fmt.Sprintf("want %s://bucket[/prefix] or http(s)://host/bucket[/prefix]", scheme))
	}
	if e.Bucket == "" {
		return Endpoint{}, invalidEndpoint(raw, "no bucket")
	}
	return e, nil
}

func invalidEndpoint(raw, why string) error {
	return sink.Permanent(fmt.Errorf("invalid sink spec: endpoint %q: %s", bus.RedactURL(raw), why))
}
