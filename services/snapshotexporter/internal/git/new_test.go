package git

import (
	"context"
	"strings"
	"testing"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

func TestNewRefusesInvalidSpecs(t *testing.T) {
	creds := backend.MapCredentials{
		{Namespace: "team-a", Name: "token"}: {keyToken: []byte("t")},
		{Namespace: "team-a", Name: "basic"}: {keyUsername: []byte("u")},
		{Namespace: "team-a", Name: "key"}:   {keySSHKey: []byte("not a key")},
		{Namespace: "team-a", Name: "nokh"}:  {keySSHKey: newKey(t).pem},
	}
	base := func(endpoint string, edit func(*v1alpha1.KollectSnapshotSinkSpec)) v1alpha1.KollectSnapshotSinkSpec {
		s := v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: endpoint}
		if edit != nil {
			edit(&s)
		}
		return s
	}
	secret := func(name string) func(*v1alpha1.KollectSnapshotSinkSpec) {
		return func(s *v1alpha1.KollectSnapshotSinkSpec) { s.SecretRef = &v1alpha1.SecretReference{Name: name} }
	}
	tests := []struct {
		name string
		spec v1alpha1.KollectSnapshotSinkSpec
		want string
	}{
		{"another type", base("https://git.example.com/r.git", func(s *v1alpha1.KollectSnapshotSinkSpec) { s.Type = "s3" }), "spec.type"},
		{"a git:// endpoint", base("git://git.example.com/r.git", nil), "git:// is not supported"},
		{"credentials in the endpoint", base("https://u:p@git.example.com/r.git", nil), "must not carry credentials"},
		{"a file:// endpoint without the operator's opt-in", base("file:///srv/git/r.git", nil), "does not allow file sinks"},
		{"an unknown commit placeholder", base("https://git.example.com/r.git", func(s *v1alpha1.KollectSnapshotSinkSpec) {
			s.Git = &v1alpha1.GitSink{CommitMessage: "export {revision}"}
		}), "spec.git.commitMessage"},
		{"an unknown layout mode", base("https://git.example.com/r.git", func(s *v1alpha1.KollectSnapshotSinkSpec) {
			s.Layout = &v1alpha1.GitLayout{Mode: "tree"}
		}), "spec.layout.mode"},
		{"a missing Secret", base("https://git.example.com/r.git", secret("absent")), "secret team-a/absent"},
		{"a username without a password", base("https://git.example.com/r.git", secret("basic")), "neither \"token\" nor \"username\" and \"password\""},
		{"token auth on an ssh endpoint", base("git@git.example.com:r.git", func(s *v1alpha1.KollectSnapshotSinkSpec) {
			secret("token")(s)
			s.Git = &v1alpha1.GitSink{Auth: &v1alpha1.GitAuth{Type: "token"}}
		}), "needs an http(s):// endpoint"},
		{"an ssh endpoint without a key", base("ssh://git@git.example.com/r.git", secret("token")), "must hold \"ssh-privatekey\""},
		{"an unparsable ssh key", base("git@git.example.com:r.git", secret("key")), "not an unencrypted PEM or OpenSSH private key"},
		{"ssh without known_hosts", base("git@git.example.com:r.git", secret("nokh")), "no key \"known_hosts\""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s, err := (&Backend{}).New(context.Background(), cfgFor(t, tt.spec), creds)
			if err == nil {
				_ = s.Close(context.Background())
				t.Fatalf("New accepted the spec")
			}
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("New: %v, want a permanent error containing %q", err, tt.want)
			}
			if strings.Contains(err.Error(), "not a key") {
				t.Fatalf("the error quotes a Secret value: %v", err)
			}
		})
	}
}

func TestNewAcceptsSSHWithInsecureSkipVerify(t *testing.T) {
	creds := backend.MapCredentials{{Namespace: "team-a", Name: "key"}: {keySSHKey: newKey(t).pem}}
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "git@git.example.com:r.git",
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "key"}, TLS: &v1alpha1.TLSConfig{InsecureSkipVerify: true}}}
	s, err := (&Backend{}).New(context.Background(), cfgFor(t, spec), creds)
	if err != nil {
		t.Fatalf("New: %v", err)
	}
	_ = s.Close(context.Background())
}

func TestNewNamesTheMissingKeyOfTheChosenAuth(t *testing.T) {
	creds := backend.MapCredentials{{Namespace: "team-a", Name: "basic"}: {keyUsername: []byte("u")}}
	spec := v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "https://git.example.com/r.git",
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: "basic"}},
		Git:        &v1alpha1.GitSink{Auth: &v1alpha1.GitAuth{Type: "basic"}}}
	_, err := (&Backend{}).New(context.Background(), cfgFor(t, spec), creds)
	if !sink.IsPermanent(err) || !strings.Contains(err.Error(), `Secret team-a/basic has no key "password"`) {
		t.Fatalf("New: %v, want a permanent error naming the Secret and key", err)
	}
}
