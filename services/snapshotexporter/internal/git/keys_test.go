package git

import (
	"crypto/ed25519"
	"crypto/rand"
	"encoding/pem"
	"testing"

	"golang.org/x/crypto/ssh"
)

// key is an SSH key pair for tests.
type key struct {
	signer ssh.Signer
	pem    []byte
}

// newKey generates an ed25519 key in OpenSSH PEM form.
func newKey(t testing.TB) key {
	t.Helper()
	_, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	block, err := ssh.MarshalPrivateKey(priv, "")
	if err != nil {
		t.Fatal(err)
	}
	signer, err := ssh.NewSignerFromKey(priv)
	if err != nil {
		t.Fatal(err)
	}
	return key{signer: signer, pem: pem.EncodeToMemory(block)}
}
