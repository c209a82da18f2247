//go:build linux

package s3

import (
	"context"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/exporter/exportertest"
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
	exportertest.CheckAmbientRefused(t, cfg, "team-a", func(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) error {
		_, err := Backend{}.New(ctx, cfg, creds)
		return err
	}, opened)
	t.Run("a policy allowing the namespace uses it", func(t *testing.T) {
		creds, err := backend.CredentialPolicy{AmbientNamespaces: []string{"team-a"}}.For(cfg, backend.MapCredentials{})
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
