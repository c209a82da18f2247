package policy_test

import (
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/services/control/internal/policy"
)

func TestEndpointViolation(t *testing.T) {
	deny, err := egress.ParsePrefixes("10.96.0.0/12,34.118.224.0/20")
	if err != nil {
		t.Fatal(err)
	}
	def, inCluster := egress.Policy{}, egress.Policy{AllowPrivate: true, Deny: deny}
	linkLocal, files := egress.Policy{AllowLinkLocal: true}, egress.Policy{AllowLocalFiles: true}
	tests := []struct {
		name     string
		policy   egress.Policy
		endpoint string
		denied   bool
	}{
		{"a public https URL is allowed", def, "https://git.example.com/inv.git", false},
		{"an s3 bucket URL is allowed", def, "s3://bucket/prefix", false},
		{"a public host:port is allowed", def, "kafka.example.com:9093", false},
		{"an scp-like public Git remote is allowed", def, "git@github.com:org/inv.git", false},
		{"a 10/8 address is denied", def, "https://10.0.0.1/x", true},
		{"a 192.168/16 address with a port is denied", def, "192.168.0.5:5432", true},
		{"loopback is denied", def, "http://127.0.0.1:8080", true},
		{"IPv6 loopback is denied", def, "https://[::1]:443/x", true},
		{"a bare IPv6 unique local address is denied", def, "fd00::5", true},
		{"the metadata link-local address is denied", def, "http://169.254.169.254/latest", true},
		{"a CGNAT address is denied", def, "https://100.64.0.10/x", true},
		{"the Alibaba metadata address is denied", def, "http://100.100.100.200/latest", true},
		{"NAT64 of the metadata address is denied", def, "http://[64:ff9b::a9fe:a9fe]/", true},
		{"6to4 of loopback is denied", def, "http://[2002:7f00:1::1]/", true},
		{"an scp-like Git remote on a private address is denied", def, "git@10.0.0.7:org/inv.git", true},
		{"the second host of a MongoDB seed list is checked", def, "mongodb://db.example.com:27017,10.0.0.8:27017/inv", true},
		{"the second of several NATS URLs is checked", def, "nats://n1.example.com:4222,nats://127.0.0.1:4222", true},
		{"localhost is denied", def, "postgres://localhost:5432/db", true},
		{"a cluster service name is denied", def, "nats://nats.kollect-system.svc:4222", true},
		{"a fully qualified cluster service name is denied", def, "https://minio.store.svc.cluster.local", true},
		{"the GCP metadata name is denied", def, "http://metadata.google.internal/computeMetadata/v1", true},
		{"a file:// repository is denied", def, "file:///var/cache/kollect/git/other.git", true},
		{"a bare path repository is denied", def, "/var/cache/kollect/git/other.git", true},
		{"an empty endpoint is not checked", def, "", false},
		{"the in-cluster opt-in allows a private address", inCluster, "https://10.0.0.1/x", false},
		{"the in-cluster opt-in allows a cluster service name", inCluster, "https://minio.store.svc.cluster.local", false},
		{"the in-cluster opt-in allows CGNAT", inCluster, "https://100.64.0.10/x", false},
		{"the in-cluster opt-in does not allow the metadata address", inCluster, "http://169.254.169.254/latest", true},
		{"the in-cluster opt-in does not allow the AWS IPv6 metadata address", inCluster, "http://[fd00:ec2::254]/latest", true},
		{"the in-cluster opt-in does not allow the GCP metadata name", inCluster, "http://metadata.google.internal/", true},
		{"the in-cluster opt-in does not allow file://", inCluster, "file:///tmp/repo.git", true},
		{"the deny list refuses the Service CIDR under the in-cluster opt-in", inCluster, "postgres://user@10.96.0.10:5432/db", true},
		{"the deny list refuses a public Service range", inCluster, "https://34.118.224.5/x", true},
		{"the link-local opt-in allows the metadata address", linkLocal, "http://169.254.169.254/latest", false},
		{"the link-local opt-in does not allow a private address", linkLocal, "https://10.0.0.1/x", true},
		{"the file opt-in allows file://", files, "file:///tmp/repo.git", false},
		{"unspecified is denied under every opt-in", egress.Policy{AllowPrivate: true, AllowLinkLocal: true}, "http://0.0.0.0:8080", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			msg := policy.EndpointViolation(tc.policy, []string{tc.endpoint})
			if (msg != "") != tc.denied {
				t.Fatalf("EndpointViolation(%q) = %q, want denied=%v", tc.endpoint, msg, tc.denied)
			}
		})
	}
}

func TestEndpointViolationNeverQuotesCredentials(t *testing.T) {
	for _, e := range []string{"postgres://admin:canary-pw@10.0.0.1:5432/db", "https://user:canary-pw@metadata.google.internal/x",
		"file:///canary-pw/repo.git", "mongodb://u:canary-pw@db.example.com,10.0.0.2/x"} {
		msg := policy.EndpointViolation(egress.Policy{}, []string{e})
		if msg == "" || strings.Contains(msg, "canary") {
			t.Fatalf("EndpointViolation of an endpoint with a password = %q, want a refusal that does not quote it", msg)
		}
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
