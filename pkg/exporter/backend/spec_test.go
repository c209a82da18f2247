package backend_test

import (
	"context"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

func TestDecodeSpec(t *testing.T) {
	for _, tc := range []struct {
		name, spec, want string // want "" means decoded
	}{
		{"a valid git spec decodes", `{"type":"git","endpoint":"https://git.example.com/r.git"}`, ""},
		{"an established spelling is normalised", `{"git":{"endpoint":"https://git.example.com/r.git"}}`, ""},
		{"an unknown field is refused by name", `{"type":"git","endpoint":"https://x/r.git","endpiont":"y"}`,
			`decode git sink spec: json: unknown field "endpiont"`},
		{"another type is refused", `{"type":"s3","endpoint":"s3://b"}`, `spec.type is "s3", not git`},
		{"an invalid spec is refused by Validate, naming the field", `{"type":"git","endpoint":"git://x/r.git"}`,
			`spec.endpoint: Invalid value: "git://"`},
		{"undecodable JSON is refused", `[1]`, "decode git sink spec"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := busv1.SinkConfig{Namespace: "team-a", Name: "inv", Spec: []byte(tc.spec)}
			spec, err := backend.DecodeSpec[v1alpha1.KollectSnapshotSinkSpec](cfg, "git")
			switch {
			case tc.want == "" && err != nil:
				t.Fatalf("DecodeSpec: %v", err)
			case tc.want == "" && (spec.Type != v1alpha1.SnapshotGit || spec.Endpoint == ""):
				t.Fatalf("decoded %+v, want a normalised git spec", spec)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want)):
				t.Fatalf("DecodeSpec error %v, want one containing %q", err, tc.want)
			case tc.want != "" && !sink.IsPermanent(err):
				t.Fatalf("DecodeSpec error %v is not permanent", err)
			}
		})
	}
}

func TestSecretData(t *testing.T) {
	ctx := context.Background()
	creds := backend.MapCredentials{
		{Namespace: "team-a", Name: "git"}:  {"token": []byte("canary-token")},
		{Namespace: "shared", Name: "git"}:  {"token": []byte("canary-token"), "username": []byte("u")},
		{Namespace: "team-a", Name: "void"}: {"token": {}},
	}
	for _, tc := range []struct {
		name string
		ref  *v1alpha1.SecretReference
		keys []string
		want string // "" means read
	}{
		{"a Secret of the sink's namespace is read", &v1alpha1.SecretReference{Name: "git"}, []string{"token"}, ""},
		{"a Secret of another namespace is read there", &v1alpha1.SecretReference{Name: "git", Namespace: "shared"}, []string{"username"}, ""},
		{"a missing key is named with the Secret", &v1alpha1.SecretReference{Name: "git"}, []string{"token", "password"},
			`Secret team-a/git has no key "password"`},
		{"an empty key counts as missing", &v1alpha1.SecretReference{Name: "void"}, []string{"token"}, `Secret team-a/void has no key "token"`},
		{"a missing Secret is the reader's error", &v1alpha1.SecretReference{Name: "none"}, nil, "team-a/none: not found"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := backend.SecretData(ctx, creds, "team-a", tc.ref, tc.keys...)
			switch {
			case tc.want == "" && (err != nil || data == nil):
				t.Fatalf("SecretData = %v, %v; want data", data, err)
			case tc.want != "" && (err == nil || !strings.Contains(err.Error(), tc.want) || !sink.IsPermanent(err)):
				t.Fatalf("SecretData error %v, want a permanent one containing %q", err, tc.want)
			case err != nil && strings.Contains(err.Error(), "canary"):
				t.Fatalf("error %q quotes a value", err)
			}
		})
	}
	if data, err := backend.SecretData(ctx, creds, "team-a", nil, "token"); data != nil || err != nil {
		t.Errorf("SecretData(nil ref) = %v, %v; want nil, nil", data, err)
	}
	if got := backend.MissingKey("ns", "s", "uri", "dsn").Error(); got != `Secret ns/s has no key "uri" or "dsn"` {
		t.Errorf("MissingKey = %q", got)
	}
}
