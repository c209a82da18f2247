package policy

import (
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
)

// EndpointViolation returns a message naming the first endpoint that points
// at a private, loopback, link-local or unspecified address, or at an
// in-cluster service name, or "" when every endpoint is public. Host names
// are not resolved here: exporters check every resolved address at connect
// time.
func EndpointViolation(endpoints []string) string {
	for _, e := range endpoints {
		if e == "" {
			continue
		}
		host := hostOf(e)
		if host == "" {
			continue
		}
		if inCluster(host) {
			return fmt.Sprintf("endpoint %s is an in-cluster or private address; the operator does not allow in-cluster sinks", e)
		}
	}
	return ""
}

func hostOf(e string) string {
	if strings.Contains(e, "://") {
		if u, err := url.Parse(e); err == nil {
			return u.Hostname()
		}
	}
	if h, _, err := net.SplitHostPort(e); err == nil {
		return h
	}
	if i := strings.IndexAny(e, "/:"); i >= 0 {
		return e[:i]
	}
	return e
}

// inCluster reports whether host is an address or name that only makes
// sense inside the cluster or on the node.
func inCluster(host string) bool {
	h := strings.ToLower(strings.TrimSuffix(host, "."))
	if h == "localhost" || strings.HasSuffix(h, ".localhost") || strings.HasSuffix(h, ".svc") ||
		strings.HasSuffix(h, ".cluster.local") || strings.HasSuffix(h, ".svc.cluster.local") {
		return true
	}
	ip, err := netip.ParseAddr(strings.Trim(h, "[]"))
	if err != nil {
		return false
	}
	return ip.IsPrivate() || ip.IsLoopback() || ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsUnspecified()
}
