package exportertest

import (
	"context"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// CheckAmbientRefused builds cfg's sink (a sink of namespace ns without
// secretRef) with no credential policy, the default one and one allowing
// another namespace: each must fail with a permanent CredentialsDenied
// naming ns, and loaded must stay false (the backend's default
// credentials were not even read).
func CheckAmbientRefused(t *testing.T, cfg busv1.SinkConfig, ns string, build func(context.Context, busv1.SinkConfig, backend.Credentials) error, loaded func() bool) {
	t.Helper()
	for _, tc := range []struct {
		name   string
		policy *backend.CredentialPolicy
	}{
		{"credentials of no policy", nil},
		{"the default policy", &backend.CredentialPolicy{}},
		{"a policy allowing another namespace", &backend.CredentialPolicy{AmbientNamespaces: []string{ns + "-other"}}},
	} {
		t.Run(tc.name+" refuses the ambient identity", func(t *testing.T) {
			var creds backend.Credentials = backend.MapCredentials{}
			if tc.policy != nil {
				var err error
				if creds, err = tc.policy.For(cfg, creds); err != nil {
					t.Fatal(err)
				}
			}
			err := build(context.Background(), cfg, creds)
			want := "ambient credentials are not allowed for namespace " + ns
			if v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied || !sink.IsPermanent(err) || !strings.Contains(err.Error(), want) {
				t.Fatalf("build returned %v, want a permanent CredentialsDenied saying %q", err, want)
			}
			if loaded() {
				t.Fatal("the default credentials were read")
			}
		})
	}
}
