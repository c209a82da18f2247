package testenv

import (
	"testing"
)

// ProxyClientName is the common name of the client certificate the
// aggregating API server presents to aggregated API servers
// (StartAggregatingKube): the only name --requestheader-allowed-names
// accepts.
const ProxyClientName = "kollect test client"

// Aggregation is what an aggregated API server under test needs from
// StartAggregatingKube: TLS files signed by one CA.
type Aggregation struct {
	// TLS are the CA (the request-header CA, and the CA of an APIService's
	// caBundle), the serving certificate, and the
	// proxy client certificate kube-apiserver presents (ProxyClientName).
	TLS TLSFiles
}

// StartAggregatingKube is StartKube with the aggregation layer set up as a
// cluster has it: kube-apiserver trusts request headers from clients
// certified by the returned CA under ProxyClientName, presents that
// client certificate to aggregated API servers, and routes to an
// APIService's Service by the Service itself: an ExternalName Service
// naming localhost reaches a server on the test's host. (With
// --enable-aggregator-routing it would route by endpoints, which an
// ExternalName Service has none of and which may not be loopback
// addresses.)
//
// The serving certificate is for localhost, 127.0.0.1 and serverHosts: the
// aggregator verifies it against the APIService's Service name
// (<service>.<namespace>.svc).
func StartAggregatingKube(t testing.TB, serverHosts ...string) (*Kube, Aggregation) {
	t.Helper()
	files := WriteTLSFiles(t, t.TempDir(), append([]string{"localhost", "127.0.0.1"}, serverHosts...)...)
	k, err := newKube("", map[string]string{
		"requestheader-client-ca-file":       files.CA,
		"requestheader-allowed-names":        ProxyClientName,
		"requestheader-username-headers":     "X-Remote-User",
		"requestheader-group-headers":        "X-Remote-Group",
		"requestheader-extra-headers-prefix": "X-Remote-Extra-",
		"proxy-client-cert-file":             files.ClientCert,
		"proxy-client-key-file":              files.ClientKey,
	})
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Stop(); err != nil {
			t.Errorf("stop kube-apiserver: %v", err)
		}
	})
	return k, Aggregation{TLS: files}
}
