package testenv

import (
	"context"
	"encoding/base64"
	"fmt"
	"os"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
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
	k, agg, err := NewAggregatingKube(t.TempDir(), serverHosts...)
	if err != nil {
		t.Fatalf("start kube-apiserver: %v", err)
	}
	t.Cleanup(func() {
		if err := k.Stop(); err != nil {
			t.Errorf("stop kube-apiserver: %v", err)
		}
	})
	return k, agg
}

// NewAggregatingKube is StartAggregatingKube for callers without a test
// (the demo): the TLS files go into dir, and the caller owns Stop.
func NewAggregatingKube(dir string, serverHosts ...string) (*Kube, Aggregation, error) {
	files, err := NewTLSFiles(dir, append([]string{"localhost", "127.0.0.1"}, serverHosts...)...)
	if err != nil {
		return nil, Aggregation{}, err
	}
	k, err := newKube("", map[string]string{
		"requestheader-client-ca-file":       files.CA,
		"requestheader-allowed-names":        ProxyClientName,
		"requestheader-username-headers":     "X-Remote-User",
		"requestheader-group-headers":        "X-Remote-Group",
		"requestheader-extra-headers-prefix": "X-Remote-Extra-",
		"proxy-client-cert-file":             files.ClientCert,
		"proxy-client-key-file":              files.ClientKey,
	}, true)
	if err != nil {
		return nil, Aggregation{}, err
	}
	return k, Aggregation{TLS: files}, nil
}

// RegisterAPIService makes kube route group/version to an aggregated API
// server listening on port on this host: an ExternalName Service
// default/<service> naming localhost, and an APIService pointing at it
// with the Aggregation's CA as its caBundle.
func RegisterAPIService(ctx context.Context, kube *Kube, agg Aggregation, group, version, service string, port int) error {
	svc := &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: service, Namespace: "default"},
		Spec: corev1.ServiceSpec{Type: corev1.ServiceTypeExternalName, ExternalName: "localhost",
			Ports: []corev1.ServicePort{{Name: "https", Port: int32(port)}}}} //nolint:gosec // G115: a listener's port
	if err := kube.Client.Create(ctx, svc); err != nil {
		return fmt.Errorf("create Service default/%s: %w", service, err)
	}
	ca, err := os.ReadFile(agg.TLS.CA)
	if err != nil {
		return err
	}
	api := &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "apiregistration.k8s.io/v1", "kind": "APIService",
		"metadata": map[string]any{"name": version + "." + group},
		"spec": map[string]any{
			"group": group, "version": version,
			"service":  map[string]any{"namespace": "default", "name": service, "port": int64(port)},
			"caBundle": base64.StdEncoding.EncodeToString(ca), "groupPriorityMinimum": int64(1000), "versionPriority": int64(15),
		},
	}}
	if err := kube.Client.Create(ctx, api); err != nil {
		return fmt.Errorf("create APIService %s.%s: %w", version, group, err)
	}
	return nil
}
