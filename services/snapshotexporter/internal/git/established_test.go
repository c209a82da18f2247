package git

import (
	"context"
	"maps"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// TestAuthWithoutSecretRefTalksWithoutCredentials pins the established
// spelling git.auth {type: token} without secretRef: the sink is built and
// talks to the remote anonymously; a server that wants credentials makes
// the error name the missing secretRef.
func TestAuthWithoutSecretRefTalksWithoutCredentials(t *testing.T) {
	tokenAuth := func(spec v1alpha1.KollectSnapshotSinkSpec) v1alpha1.KollectSnapshotSinkSpec {
		spec.SecretRef = nil
		spec.Git = &v1alpha1.GitSink{Auth: &v1alpha1.GitAuth{Type: "token"}}
		return spec
	}
	t.Run("a public repository is written", func(t *testing.T) {
		p := startPeer(t, testenv.GitOptions{})
		name, url := p.newRepo(t)
		s := newSink(t, &Backend{Egress: allowLoopback}, tokenAuth(p.spec(url)), p.creds)
		if err := s.Check(context.Background()); err != nil {
			t.Fatalf("check: %v", err)
		}
		write(t, s, snap(t, "team-a", 1, pod("team-a", "a", 1)))
		if n := len(p.commits(t, name)); n != 1 {
			t.Fatalf("%d commits, want 1", n)
		}
	})
	t.Run("a repository that needs credentials is refused with a message naming secretRef", func(t *testing.T) {
		p := startPeer(t, testenv.GitOptions{Token: "private-token"})
		_, url := p.newRepo(t)
		s := newSink(t, &Backend{Egress: allowLoopback}, tokenAuth(p.spec(url)), p.creds)
		err := s.Check(context.Background())
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "spec.secretRef is not set") {
			t.Fatalf("check: %v, want a permanent error naming the missing spec.secretRef", err)
		}
		if strings.Contains(err.Error(), "private-token") {
			t.Fatalf("the error quotes the token: %v", err)
		}
	})
	t.Run("ssh auth without secretRef is still refused", func(t *testing.T) {
		spec := v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "ssh://git@git.example.com/r.git",
			Git: &v1alpha1.GitSink{Auth: &v1alpha1.GitAuth{Type: "ssh"}}}
		_, err := (&Backend{}).New(context.Background(), cfgFor(t, spec), nil)
		if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "needs spec.secretRef") {
			t.Fatalf("New: %v, want a permanent error naming spec.secretRef", err)
		}
	})
}

// TestATypelessGitBlockIsTheCanonicalSink pins the established spelling
// of a sink whose type, endpoint and path template come from its git
// block: it writes the same files as its canonical twin.
func TestATypelessGitBlockIsTheCanonicalSink(t *testing.T) {
	p := startPeer(t, testenv.GitOptions{})
	const tmpl = "clusters/{cluster}/{namespace}/{name}{extension}"
	_, estURL := p.newRepo(t)
	_, canonURL := p.newRepo(t)
	est := v1alpha1.KollectSnapshotSinkSpec{Git: &v1alpha1.GitSink{
		BlockLocation: v1alpha1.BlockLocation{Endpoint: estURL, PathTemplate: tmpl}}}
	canonical := p.spec(canonURL)
	canonical.PathTemplate = tmpl
	snapshot := snap(t, "team-a", 1, pod("team-a", "a", 1), pod("team-a", "b", 1))
	write(t, newSink(t, &Backend{Egress: allowLoopback}, est, p.creds), snapshot)
	write(t, newSink(t, &Backend{Egress: allowLoopback}, canonical, p.creds), snapshot)
	got, err := p.newReader(t, estURL, canonical).files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	want, err := p.newReader(t, canonURL, canonical).files(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := want["clusters/conformance/team-a/web.yaml"]; !ok {
		t.Errorf("canonical files %v, want clusters/conformance/team-a/web.yaml", slices.Sorted(maps.Keys(want)))
	}
	if d := cmp.Diff(want, got); d != "" {
		t.Errorf("files (-canonical +established):\n%s", d)
	}
}
