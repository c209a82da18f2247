package policy_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/policy"
)

func TestEndpointViolation(t *testing.T) {
	tests := []struct {
		name     string
		endpoint string
		denied   bool
	}{
		{"a public https URL is allowed", "https://git.example.com/inv.git", false},
		{"an s3 bucket URL is allowed", "s3://bucket/prefix", false},
		{"a public host:port is allowed", "kafka.example.com:9093", false},
		{"a 10/8 address is denied", "https://10.0.0.1/x", true},
		{"a 192.168/16 address with a port is denied", "192.168.0.5:5432", true},
		{"loopback is denied", "http://127.0.0.1:8080", true},
		{"IPv6 loopback is denied", "https://[::1]:443/x", true},
		{"the metadata link-local address is denied", "http://169.254.169.254/latest", true},
		{"localhost is denied", "postgres://localhost:5432/db", true},
		{"a cluster service name is denied", "nats://nats.kollect-system.svc:4222", true},
		{"a fully qualified cluster service name is denied", "https://minio.store.svc.cluster.local", true},
		{"an empty endpoint is not checked", "", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := policy.EndpointViolation([]string{tc.endpoint})
			if (msg != "") != tc.denied {
				t.Fatalf("EndpointViolation(%q) = %q, want denied=%v", tc.endpoint, msg, tc.denied)
			}
		})
	}
}

func TestScopeRules(t *testing.T) {
	rules := &v1alpha1.ScopeRules{
		AllowedGVKs:       []v1alpha1.AllowedGVK{{Group: "apps", Kind: "Deployment"}, {Version: "v1", Kind: "ConfigMap"}},
		AllowedNamespaces: []string{"a", "b"},
		DeniedNamespaces:  []string{"b"},
		SnapshotSinkRefs:  []string{},
		MinExportInterval: &metav1.Duration{Duration: time.Minute},
	}
	checks := []struct {
		name string
		got  bool
		want bool
	}{
		{"a kind allowed for every version is allowed", policy.AllowsGVK(rules, v1alpha1.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}), true},
		{"a kind allowed for one version is refused at another", policy.AllowsGVK(rules, v1alpha1.GroupVersionKind{Version: "v2", Kind: "ConfigMap"}), false},
		{"a kind not listed is refused", policy.AllowsGVK(rules, v1alpha1.GroupVersionKind{Version: "v1", Kind: "Secret"}), false},
		{"no Scope allows every kind", policy.AllowsGVK(nil, v1alpha1.GroupVersionKind{Version: "v1", Kind: "Secret"}), true},
		{"an allowed namespace is allowed", policy.AllowsNamespace(rules, "a"), true},
		{"a denied namespace wins over allowed", policy.AllowsNamespace(rules, "b"), false},
		{"a namespace not listed is refused", policy.AllowsNamespace(rules, "c"), false},
		{"a present empty sink list allows nothing", policy.AllowsSink(rules.SnapshotSinkRefs, "git"), false},
		{"an absent sink list allows everything", policy.AllowsSink(rules.EventSinkRefs, "kafka"), true},
		{"the floor is minExportInterval", policy.Floor(rules) == time.Minute, true},
	}
	for _, c := range checks {
		t.Run(c.name, func(t *testing.T) {
			if c.got != c.want {
				t.Fatalf("got %v, want %v", c.got, c.want)
			}
		})
	}
}

func TestSecretRefViolation(t *testing.T) {
	ref := func(ns string) *v1alpha1.SinkCommon {
		return &v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "creds", Namespace: ns}}
	}
	for _, tc := range []struct {
		name       string
		common     *v1alpha1.SinkCommon
		allowCross bool
		refused    bool
	}{
		{"no secretRef is allowed", &v1alpha1.SinkCommon{}, false, false},
		{"a secretRef without a namespace is allowed", ref(""), false, false},
		{"the sink's own namespace spelled out is allowed", ref("team-a"), false, false},
		{"another namespace is refused", ref("team-b"), false, true},
		{"another namespace is allowed when the operator allows it", ref("team-b"), true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			msg := policy.SecretRefViolation("team-a", tc.common, tc.allowCross)
			if tc.refused != (msg != "") {
				t.Fatalf("SecretRefViolation = %q, want refused %t", msg, tc.refused)
			}
			if tc.refused && !strings.HasPrefix(msg, "spec.secretRef.namespace:") {
				t.Fatalf("the refusal %q does not name spec.secretRef.namespace first", msg)
			}
		})
	}
}
