//go:build linux

package s3

import (
	"context"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// A sink without secretRef would sign with the exporter's default
// credential chain (IRSA, instance metadata, environment): only where the
// operator allows it, and the chain's files are not even read otherwise.
func TestTheDefaultCredentialChainIsUsedOnlyWhereTheOperatorAllowsIt(t *testing.T) {
	config, opened := testenv.Tripwire(t, "[default]\nregion = eu-west-1\n")
	t.Setenv("AWS_CONFIG_FILE", config)
	t.Setenv("AWS_REGION", "")
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: v1alpha1.SnapshotS3, Endpoint: "s3://bucket/prefix"}
	cfg := sinkConfig(t, spec)
	for _, tc := range []struct {
		name   string
		policy *exporter.CredentialPolicy
	}{
		{"credentials of no policy", nil},
		{"the default policy", &exporter.CredentialPolicy{}},
		{"a policy allowing another namespace", &exporter.CredentialPolicy{AmbientNamespaces: []string{"team-b"}}},
	} {
		t.Run(tc.name+" refuses it", func(t *testing.T) {
			var creds exporter.Credentials = exporter.MapCredentials{}
			if tc.policy != nil {
				var err error
				if creds, err = tc.policy.For(cfg, creds); err != nil {
					t.Fatal(err)
				}
			}
			_, err := Backend{}.New(context.Background(), cfg, creds)
			if exporter.DeniedReason(err) != exporter.ReasonCredentialsDenied || !sink.IsPermanent(err) ||
				!strings.Contains(err.Error(), "ambient credentials are not allowed for namespace team-a") {
				t.Fatalf("new returned %v, want a permanent CredentialsDenied naming namespace team-a", err)
			}
			if opened() {
				t.Fatal("the default configuration was loaded")
			}
		})
	}
	t.Run("a policy allowing the namespace uses it", func(t *testing.T) {
		creds, err := exporter.CredentialPolicy{AmbientNamespaces: []string{"team-a"}}.For(cfg, exporter.MapCredentials{})
		if err != nil {
			t.Fatal(err)
		}
		bk, _, err := Backend{}.build(context.Background(), cfg, creds)
		if err != nil {
			t.Fatalf("build with the default chain allowed: %v", err)
		}
		if !opened() || bk.region != "eu-west-1" {
			t.Fatalf("the default configuration was not used (read %t, region %q)", opened(), bk.region)
		}
	})
}
