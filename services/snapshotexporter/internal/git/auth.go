package git

import (
	"cmp"
	"context"
	"fmt"
	"net"
	"net/netip"
	"os"
	"strconv"

	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
	"golang.org/x/crypto/ssh"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// Secret keys the git backend reads.
const (
	keyUsername   = "username"
	keyPassword   = "password"
	keyToken      = "token"
	keySSHKey     = "ssh-privatekey"
	keyKnownHosts = "known_hosts"
)

// Auth types of spec.git.auth.type.
const (
	authBasic = "basic"
	authToken = "token"
	authSSH   = "ssh"
)

// tokenUser is the user name sent with a token when the Secret has no
// username key, as GitHub and GitLab accept.
const tokenUser = "x-access-token"

// secretRef names the sink's Secret.
type secretRef struct {
	busv1.NamespacedName
	data map[string][]byte
}

// key returns the value of key k, or a permanent error naming the Secret
// and key (never a value).
func (s *secretRef) key(k, why string) ([]byte, error) {
	v, ok := s.data[k]
	if !ok || len(v) == 0 {
		return nil, fmt.Errorf("%s: %w", why, backend.MissingKey(s.Namespace, s.Name, k))
	}
	return v, nil
}

func (s *secretRef) has(k string) bool { return s != nil && len(s.data[k]) > 0 }

// readSecret reads spec.secretRef, nil when the spec has none.
func readSecret(ctx context.Context, cfg busv1.SinkConfig, spec *v1alpha1.KollectSnapshotSinkSpec, creds backend.Credentials) (*secretRef, error) {
	if spec.SecretRef == nil {
		return nil, nil
	}
	ref := &secretRef{NamespacedName: busv1.NamespacedName{Namespace: cmp.Or(spec.SecretRef.Namespace, cfg.Namespace), Name: spec.SecretRef.Name}}
	data, err := backend.SecretData(ctx, creds, cfg.Namespace, spec.SecretRef)
	if err != nil {
		return nil, err
	}
	ref.data = data
	return ref, nil
}

// authType is spec.git.auth.type, or the type the Secret's keys imply for
// the endpoint's protocol; "" means anonymous.
func authType(spec *v1alpha1.KollectSnapshotSinkSpec, proto string, sec *secretRef) string {
	if spec.Git != nil && spec.Git.Auth != nil {
		return spec.Git.Auth.Type
	}
	switch {
	case proto == "ssh" && sec.has(keySSHKey):
		return authSSH
	case proto == "http" || proto == "https":
		if sec.has(keyToken) {
			return authToken
		}
		if sec.has(keyUsername) && sec.has(keyPassword) {
			return authBasic
		}
	}
	return ""
}

// buildAuth returns the go-git auth method of the sink; nil is anonymous
// (or an ssh endpoint without a key, which fails at connect time). An http
// auth type (token, basic) without secretRef is anonymous too, as the
// established API has it ("secretRef: required for private repos"); the
// sink's errors then name the missing secretRef (Sink.classify).
func buildAuth(spec *v1alpha1.KollectSnapshotSinkSpec, ep *transport.Endpoint, sec *secretRef, policy egress.Policy) (transport.AuthMethod, error) {
	kind := authType(spec, ep.Protocol, sec)
	isHTTP := ep.Protocol == "http" || ep.Protocol == "https"
	if kind != "" && sec == nil {
		if isHTTP && (kind == authToken || kind == authBasic) {
			return nil, nil
		}
		return nil, sink.Permanent(fmt.Errorf("spec.git.auth.type %s needs spec.secretRef", kind))
	}
	switch kind {
	case "":
		if ep.Protocol == "ssh" {
			return nil, sink.Permanent(fmt.Errorf("spec.endpoint %s is an ssh remote: spec.secretRef must hold %q", ep.String(), keySSHKey))
		}
		if sec != nil {
			return nil, sink.Permanent(fmt.Errorf("secretRef: Secret %s holds neither %q nor %q and %q", sec.NamespacedName, keyToken, keyUsername, keyPassword))
		}
		return nil, nil
	case authBasic, authToken:
		if !isHTTP {
			return nil, sink.Permanent(fmt.Errorf("spec.git.auth.type %s needs an http(s):// endpoint", kind))
		}
		return httpAuth(kind, sec)
	case authSSH:
		if ep.Protocol != "ssh" {
			return nil, sink.Permanent(fmt.Errorf("spec.git.auth.type ssh needs an ssh:// or user@host:path endpoint"))
		}
		return sshAuth(spec, ep, sec, policy)
	}
	return nil, sink.Permanent(fmt.Errorf("spec.git.auth.type %q is not token, basic or ssh", kind))
}

func httpAuth(kind string, sec *secretRef) (transport.AuthMethod, error) {
	if kind == authToken {
		tok, err := sec.key(keyToken, "auth type token")
		if err != nil {
			return nil, err
		}
		user := tokenUser
		if sec.has(keyUsername) {
			user = string(sec.data[keyUsername])
		}
		return &githttp.BasicAuth{Username: user, Password: string(tok)}, nil
	}
	user, err := sec.key(keyUsername, "auth type basic")
	if err != nil {
		return nil, err
	}
	pass, err := sec.key(keyPassword, "auth type basic")
	if err != nil {
		return nil, err
	}
	return &githttp.BasicAuth{Username: string(user), Password: string(pass)}, nil
}

// sshAuth builds public-key auth whose host key callback first checks the
// connected address against the policy, then the Secret's known_hosts
// (or accepts any key when tls.insecureSkipVerify is set).
func sshAuth(spec *v1alpha1.KollectSnapshotSinkSpec, ep *transport.Endpoint, sec *secretRef, policy egress.Policy) (transport.AuthMethod, error) {
	key, err := sec.key(keySSHKey, "auth type ssh")
	if err != nil {
		return nil, err
	}
	user := ep.User
	if user == "" {
		user = "git"
	}
	pk, err := gitssh.NewPublicKeys(user, key, "")
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("secretRef: Secret %s key %q is not an unencrypted PEM or OpenSSH private key", sec.NamespacedName, keySSHKey))
	}
	var verify ssh.HostKeyCallback
	switch {
	case sec.has(keyKnownHosts):
		verify, pk.HostKeyAlgorithms, err = knownHosts(sec.data[keyKnownHosts], ep)
		if err != nil {
			return nil, sink.Permanent(fmt.Errorf("secretRef: Secret %s key %q: %w", sec.NamespacedName, keyKnownHosts, err))
		}
	case spec.TLS != nil && spec.TLS.InsecureSkipVerify:
		verify = ssh.InsecureIgnoreHostKey() //nolint:gosec // the user's explicit choice, reported as TLSInsecure
	default:
		return nil, backend.Unresolved(fmt.Errorf("secretRef: Secret %s has no key %q: add the server's host keys, or set tls.insecureSkipVerify to skip host key verification", sec.NamespacedName, keyKnownHosts))
	}
	pk.HostKeyCallback = func(host string, remote net.Addr, k ssh.PublicKey) error {
		if ta, ok := remote.(*net.TCPAddr); ok {
			ip, _ := netip.AddrFromSlice(ta.IP)
			if err := policy.Check(ip.Unmap()); err != nil {
				return err
			}
		}
		if err := verify(host, remote, k); err != nil {
			// Permanent here, where the error has its type (a
			// knownhosts.KeyError): the host keys must change.
			return sink.Permanent(fmt.Errorf("verify the host key of %s: %w", host, err))
		}
		return nil
	}
	return pk, nil
}

// knownHosts parses known_hosts data into a callback and the host key
// algorithms it holds for the endpoint's host.
func knownHosts(data []byte, ep *transport.Endpoint) (ssh.HostKeyCallback, []string, error) {
	f, err := os.CreateTemp("", "kollect-known-hosts-")
	if err != nil {
		return nil, nil, fmt.Errorf("stage known hosts: %w", err)
	}
	defer func() { _ = os.Remove(f.Name()) }()
	_, err = f.Write(data)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return nil, nil, fmt.Errorf("stage known hosts: %w", err)
	}
	db, err := gitssh.NewKnownHostsDb(f.Name())
	if err != nil {
		return nil, nil, fmt.Errorf("parse known hosts: %w", err)
	}
	port := ep.Port
	if port <= 0 {
		port = gitssh.DefaultPort
	}
	return db.HostKeyCallback(), db.HostKeyAlgorithms(net.JoinHostPort(ep.Host, strconv.Itoa(port))), nil
}
