package v1alpha1_test

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// testSchemaAndValidateAgree creates sinks with each endpoint form and
// checks that the CRD's answer equals the spec's Validate (which the
// webhook, the reconciler and every backend call): a form one admits and
// another refuses is the bug this pins (git:// was admitted by the CRD and
// refused by the exporter). file:// is a valid form everywhere; whether
// the operator allows file sinks is the endpoint policy's question, asked
// by the webhook and the exporter alike (services/control egress tests).
func testSchemaAndValidateAgree(t *testing.T, c client.Client) {
	ns := createNamespace(t, c, "agreement")
	for i, tc := range []struct {
		base, endpoint string
		valid          bool
	}{
		{baseGitSink, "https://git.example.com/r.git", true},
		{baseGitSink, "http://git.example.com/r.git", true},
		{baseGitSink, "ssh://git@git.example.com/r.git", true},
		{baseGitSink, "git@git.example.com:team/r.git", true},
		{baseGitSink, "file:///var/lib/kollect/r.git", true},
		{baseGitSink, "git://git.example.com/r.git", false},
		{baseGitSink, "/var/lib/kollect/r.git", false},
		{baseGitSink, "s3://bucket", false},
		{baseGitLabSink, "https://gitlab.example.com", true},
		{baseGitLabSink, "http://gitlab.example.com:8080/gitlab/", true},
		{baseGitLabSink, "https://gitlab.example.com/?private_token=x", false},
		{baseGitLabSink, "https://gitlab.example.com/#top", false},
		{baseGitLabSink, "ssh://gitlab.example.com", false},
		{baseS3Sink, "s3://bucket/prefix", true},
		{baseS3Sink, "https://minio.example.com/bucket", true},
		{baseS3Sink, "gs://bucket", false},
		{basePostgresSink, "postgresql://db.example.com/inv", true},
		{basePostgresSink, "mongodb://db.example.com/inv", false},
	} {
		t.Run(fmt.Sprintf("%s accepted %v", tc.endpoint, tc.valid), func(t *testing.T) {
			obj := build(t, tc.base, ns, fmt.Sprintf("agree-%02d", i))
			set("spec.endpoint", "'"+tc.endpoint+"'")(t, obj.Object)
			apiErr := c.Create(context.Background(), obj)
			var errs field.ErrorList
			switch obj.GetKind() {
			case "KollectSnapshotSink":
				var s v1alpha1.KollectSnapshotSink
				fromUnstructured(t, obj.Object, &s)
				errs = s.Spec.Validate()
			default:
				var s v1alpha1.KollectDatabaseSink
				fromUnstructured(t, obj.Object, &s)
				errs = s.Spec.Validate()
			}
			if (apiErr == nil) != tc.valid || (len(errs) == 0) != tc.valid {
				t.Fatalf("want valid=%v; the API server says %v, Validate says %v", tc.valid, apiErr, errs)
			}
		})
	}
}

func fromUnstructured(t *testing.T, obj map[string]any, into any) {
	t.Helper()
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj, into); err != nil {
		t.Fatalf("decode: %v", err)
	}
}
