package git

import (
	"context"
	"errors"
	"strings"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
)

// sshPeer is a Git server reachable over SSH (writes) and HTTP (reads).
type sshPeer struct {
	*peer
	ssh    *sshServer
	client key
}

func startSSHPeer(t *testing.T) *sshPeer {
	t.Helper()
	p := &sshPeer{peer: startPeer(t, testenv.GitOptions{}), client: newKey(t)}
	p.ssh = startSSH(t, p.g.Root, p.client.signer.PublicKey())
	return p
}

// sshSpec is the spec of a sink writing repo over SSH with Secret name.
func (p *sshPeer) sshSpec(repo, secret string) v1alpha1.KollectSnapshotSinkSpec {
	return v1alpha1.KollectSnapshotSinkSpec{Type: "git", Endpoint: "ssh://git@" + p.ssh.addr + "/" + repo + ".git",
		SinkCommon: v1alpha1.SinkCommon{SecretRef: &v1alpha1.SecretReference{Name: secret}}}
}

func (p *sshPeer) secret(name string, data map[string][]byte) {
	p.creds[busv1.NamespacedName{Namespace: "team-a", Name: name}] = data
}

func TestSSHConformance(t *testing.T) {
	p := startSSHPeer(t)
	p.secret("ssh", map[string][]byte{keySSHKey: p.client.pem, keyKnownHosts: p.ssh.knownHosts})
	p.secret("ssh-other-key", map[string][]byte{keySSHKey: newKey(t).pem, keyKnownHosts: p.ssh.knownHosts})
	sinktest.Run(t, sinktest.Factory{
		New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
			name, url := p.newRepo(t)
			return newSink(t, &Backend{Egress: allowLoopback}, p.sshSpec(name, "ssh"), p.creds), p.newReader(t, url, p.spec(url))
		},
		BadCredentials: func(t *testing.T) sink.Sink {
			name, _ := p.newRepo(t)
			return newSink(t, &Backend{Egress: allowLoopback}, p.sshSpec(name, "ssh-other-key"), p.creds)
		},
	})
}

func TestSSHHostKeysAndPolicy(t *testing.T) {
	p := startSSHPeer(t)
	other := startSSH(t, p.g.Root, p.client.signer.PublicKey()) // another host key
	wrongHosts := []byte(strings.Replace(string(other.knownHosts), other.addr[strings.LastIndex(other.addr, ":")+1:],
		p.ssh.addr[strings.LastIndex(p.ssh.addr, ":")+1:], 1))
	p.secret("wrong-host", map[string][]byte{keySSHKey: p.client.pem, keyKnownHosts: wrongHosts})
	p.secret("no-hosts", map[string][]byte{keySSHKey: p.client.pem})
	p.secret("ssh", map[string][]byte{keySSHKey: p.client.pem, keyKnownHosts: p.ssh.knownHosts})
	tests := []struct {
		name   string
		policy egress.Policy
		secret string
		tls    *v1alpha1.TLSConfig
		check  func(error) bool
	}{
		{"a host key other than known_hosts holds is refused", allowLoopback, "wrong-host", nil,
			func(err error) bool {
				return sink.IsPermanent(err) && strings.Contains(err.Error(), "knownhosts: key mismatch")
			}},
		{"insecureSkipVerify accepts any host key", allowLoopback, "no-hosts", &v1alpha1.TLSConfig{InsecureSkipVerify: true},
			func(err error) bool { return err == nil }},
		{"the default policy refuses the loopback server before authenticating", egress.Policy{}, "ssh", nil,
			func(err error) bool { return sink.IsPermanent(err) && errors.Is(err, egress.ErrDenied) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			name, _ := p.newRepo(t)
			spec := p.sshSpec(name, tt.secret)
			spec.TLS = tt.tls
			s := newSink(t, &Backend{Egress: tt.policy}, spec, p.creds)
			err := s.Write(context.Background(), snap(t, "team-a", 1, pod("team-a", "a", 1)))
			if !tt.check(err) {
				t.Fatalf("write: %v", err)
			}
			if err := s.Check(context.Background()); !tt.check(err) {
				t.Fatalf("check: %v", err)
			}
		})
	}
}
