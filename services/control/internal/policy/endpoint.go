package policy

import (
	"fmt"
	"net"
	"net/netip"
	"strings"

	"kollect.dev/kollect/pkg/egress"
)

// EndpointViolation returns a message naming why the operator's egress
// policy p refuses the first refused endpoint, or "" when it refuses none.
// It reads the endpoints' text only: a literal address is checked with
// p.Check (address classes, opt-ins, deny list), an in-cluster name
// (localhost, *.svc, *.cluster.local) needs p.AllowPrivate, a cloud
// metadata name p.AllowLinkLocal, and a file:// (or bare path) Git
// endpoint p.AllowLocalFiles. Other host names are not resolved here:
// exporters check every resolved address at connect time. Messages name
// the host, never the whole endpoint (it may carry credentials).
func EndpointViolation(p egress.Policy, endpoints []string) string {
	for _, e := range endpoints {
		if e == "" {
			continue
		}
		if isFile(e) {
			if !p.AllowLocalFiles {
				return "a file:// endpoint is on the exporter's own file system; the operator does not allow file sinks"
			}
			continue
		}
		for _, h := range hostsOf(e) {
			if msg := hostViolation(p, h); msg != "" {
				return msg
			}
		}
	}
	return ""
}

// isFile reports whether e is a local Git repository: file:// or a path.
func isFile(e string) bool {
	return strings.HasPrefix(strings.ToLower(e), "file:") || strings.HasPrefix(e, "/")
}

// hostViolation checks one host name or literal address.
func hostViolation(p egress.Policy, host string) string {
	if ip, err := netip.ParseAddr(host); err == nil {
		if err := p.Check(ip); err != nil {
			return err.Error()
		}
		return ""
	}
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	switch {
	case metadataNames[h]:
		if !p.AllowLinkLocal {
			return fmt.Sprintf("endpoint host %s is a cloud metadata name; the operator does not allow link-local sinks", h)
		}
	case inClusterName(h):
		if !p.AllowPrivate {
			return fmt.Sprintf("endpoint host %s is an in-cluster name; the operator does not allow in-cluster sinks", h)
		}
	}
	return ""
}

// metadataNames are the host names of cloud instance metadata services.
var metadataNames = map[string]bool{
	"metadata": true, "metadata.google.internal": true, "metadata.goog": true,
	"instance-data": true, "instance-data.ec2.internal": true,
}

// inClusterName reports whether h (lower case) only makes sense inside
// the cluster or on the node.
func inClusterName(h string) bool {
	return h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".svc") ||
		strings.HasSuffix(h, ".cluster.local")
}

// hostsOf returns the hosts an endpoint names: a URL's host, each host of
// a comma-separated list (mongodb://a,b/db, several NATS URLs), the host
// of host:port and of scp-like user@host:path.
func hostsOf(e string) []string {
	var hosts []string
	for _, part := range strings.Split(e, ",") {
		part = strings.TrimSpace(part)
		if i := strings.Index(part, "://"); i >= 0 {
			part = part[i+3:]
		}
		if i := strings.IndexAny(part, "/?#"); i >= 0 {
			part = part[:i]
		}
		if i := strings.LastIndex(part, "@"); i >= 0 {
			part = part[i+1:]
		}
		if h := hostOf(part); h != "" {
			hosts = append(hosts, h)
		}
	}
	return hosts
}

// hostOf returns the host of an authority: host, host:port, [v6]:port,
// [v6], host:path (scp-like) or a bare IPv6 address.
func hostOf(a string) string {
	if h, _, err := net.SplitHostPort(a); err == nil {
		return h
	}
	if strings.HasPrefix(a, "[") {
		if i := strings.Index(a, "]"); i > 0 {
			return a[1:i]
		}
	}
	if _, err := netip.ParseAddr(a); err == nil {
		return a
	}
	if i := strings.Index(a, ":"); i >= 0 {
		return a[:i]
	}
	return a
}
