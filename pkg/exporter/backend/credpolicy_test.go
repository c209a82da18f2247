package backend_test

import (
	"context"
	"encoding/json"
	"flag"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/exporter/exportertest"
	"kollect.dev/kollect/pkg/sink"
)

func newReadLog() *exportertest.ReadLog {
	return &exportertest.ReadLog{MapCredentials: backend.MapCredentials{
		{Namespace: "team-a", Name: "own"}:   {"token": []byte("team-a-token")},
		{Namespace: "team-b", Name: "other"}: {"token": []byte("team-b-token")},
		{Namespace: "team-c", Name: "third"}: {"token": []byte("team-c-token")},
	}}
}

// sinkIn returns the SinkConfig of sink team-a/s whose spec has secretRef.
func sinkIn(secretRef any) busv1.SinkConfig {
	spec, _ := json.Marshal(map[string]any{"type": "memory", "secretRef": secretRef})
	return busv1.SinkConfig{Family: busv1.FamilySnapshot, Type: "memory", Namespace: "team-a", Name: "s", Spec: spec}
}

func TestASecretRefToAnotherNamespaceIsRefusedBeforeAnyRead(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    backend.CredentialPolicy
		secretRef any
		want      string // "" when allowed
	}{
		{"another namespace is refused by default", backend.CredentialPolicy{},
			map[string]string{"name": "other", "namespace": "team-b"}, v1alpha1.ReasonSecretRefDenied},
		{"another namespace is refused even with ambient credentials allowed everywhere",
			backend.CredentialPolicy{AmbientNamespaces: []string{"*"}},
			map[string]string{"name": "other", "namespace": "team-b"}, v1alpha1.ReasonSecretRefDenied},
		{"the sink's own namespace spelled out is allowed", backend.CredentialPolicy{},
			map[string]string{"name": "own", "namespace": "team-a"}, ""},
		{"no namespace means the sink's and is allowed", backend.CredentialPolicy{}, map[string]string{"name": "own"}, ""},
		{"another namespace is allowed when the operator allows it", backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: true},
			map[string]string{"name": "other", "namespace": "team-b"}, ""},
		{"a spec without secretRef is allowed", backend.CredentialPolicy{}, nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := newReadLog()
			_, err := tc.policy.For(sinkIn(tc.secretRef), log)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("For: %v", err)
				}
				return
			}
			if got := v1alpha1.ReasonOf(err); got != tc.want || !sink.IsPermanent(err) {
				t.Fatalf("For: %v (reason %q, permanent %t), want a permanent %s", err, got, sink.IsPermanent(err), tc.want)
			}
			if !strings.Contains(err.Error(), "spec.secretRef.namespace") {
				t.Errorf("the refusal %q does not name spec.secretRef.namespace", err)
			}
			if n := len(log.Reads()); n != 0 {
				t.Fatalf("%d Secret reads happened, want none", n)
			}
		})
	}
}

func TestABackendReadsOnlyTheNamespacesThePolicyAllows(t *testing.T) {
	for _, tc := range []struct {
		name      string
		policy    backend.CredentialPolicy
		secretRef any
		read      busv1.NamespacedName
		allowed   bool
	}{
		{"its own namespace", backend.CredentialPolicy{}, nil, busv1.NamespacedName{Namespace: "team-a", Name: "own"}, true},
		{"another namespace the spec does not name", backend.CredentialPolicy{}, map[string]string{"name": "own"},
			busv1.NamespacedName{Namespace: "team-b", Name: "other"}, false},
		{"a third namespace while cross-namespace references are allowed for another",
			backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: true}, map[string]string{"name": "other", "namespace": "team-b"},
			busv1.NamespacedName{Namespace: "team-c", Name: "third"}, false},
		{"the secretRef's namespace while cross-namespace references are allowed",
			backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: true}, map[string]string{"name": "other", "namespace": "team-b"},
			busv1.NamespacedName{Namespace: "team-b", Name: "other"}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			log := newReadLog()
			creds, err := tc.policy.For(sinkIn(tc.secretRef), log)
			if err != nil {
				t.Fatal(err)
			}
			_, err = creds.Secret(context.Background(), tc.read.Namespace, tc.read.Name)
			if tc.allowed {
				if err != nil || len(log.Reads()) != 1 {
					t.Fatalf("read %s: %v after %d reads, want one read", tc.read, err, len(log.Reads()))
				}
				return
			}
			if v1alpha1.ReasonOf(err) != v1alpha1.ReasonSecretRefDenied || !sink.IsPermanent(err) {
				t.Fatalf("read %s: %v, want a permanent SecretRefDenied", tc.read, err)
			}
			if len(log.Reads()) != 0 {
				t.Fatalf("the refused read reached the Secret reader")
			}
		})
	}
}

func TestAmbientCredentialsNeedTheOperatorsLeaveForTheNamespace(t *testing.T) {
	for _, tc := range []struct {
		name       string
		namespaces []string
		asked      string
		allowed    bool
	}{
		{"no namespace is allowed by default", nil, "team-a", false},
		{"a listed namespace is allowed", []string{"platform", "team-a"}, "team-a", true},
		{"an unlisted namespace is refused", []string{"platform"}, "team-a", false},
		{"* allows every namespace", []string{"*"}, "team-a", true},
		{"a backend asking for another namespace than the sink's is refused", []string{"team-b"}, "team-b", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			creds, err := backend.CredentialPolicy{AmbientNamespaces: tc.namespaces}.For(sinkIn(nil), newReadLog())
			if err != nil {
				t.Fatal(err)
			}
			err = backend.AmbientCredentials(creds, tc.asked)
			if tc.allowed {
				if err != nil {
					t.Fatalf("AmbientCredentials: %v", err)
				}
				return
			}
			if v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied || !sink.IsPermanent(err) ||
				!strings.Contains(err.Error(), "ambient credentials are not allowed for namespace "+tc.asked) {
				t.Fatalf("AmbientCredentials: %v, want a permanent CredentialsDenied naming namespace %s", err, tc.asked)
			}
		})
	}
	t.Run("bare credentials never allow ambient credentials", func(t *testing.T) {
		if err := backend.AmbientCredentials(backend.MapCredentials{}, "team-a"); v1alpha1.ReasonOf(err) != v1alpha1.ReasonCredentialsDenied {
			t.Fatalf("AmbientCredentials(MapCredentials): %v, want CredentialsDenied", err)
		}
	})
}

func TestTheCredentialPolicyFlagsParse(t *testing.T) {
	for _, tc := range []struct {
		name    string
		args    []string
		want    backend.CredentialPolicy
		wantErr bool
	}{
		{"the defaults allow nothing", nil, backend.CredentialPolicy{}, false},
		{"a comma list with spaces and empty items", []string{"--ambient-credentials-namespaces= platform, team-a,,",
			"--allow-cross-namespace-secret-refs"},
			backend.CredentialPolicy{AllowCrossNamespaceSecretRefs: true, AmbientNamespaces: []string{"platform", "team-a"}}, false},
		{"a star", []string{"--ambient-credentials-namespaces=*"}, backend.CredentialPolicy{AmbientNamespaces: []string{"*"}}, false},
		{"an invalid namespace name", []string{"--ambient-credentials-namespaces=Team_A"}, backend.CredentialPolicy{}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var p backend.CredentialPolicy
			fs := flag.NewFlagSet("x", flag.ContinueOnError)
			fs.SetOutput(new(strings.Builder))
			p.BindFlags(fs)
			err := fs.Parse(tc.args)
			if tc.wantErr != (err != nil) {
				t.Fatalf("parse %v: %v", tc.args, err)
			}
			if d := cmp.Diff(tc.want, p); !tc.wantErr && d != "" {
				t.Fatalf("policy (-want +got):\n%s", d)
			}
		})
	}
}
