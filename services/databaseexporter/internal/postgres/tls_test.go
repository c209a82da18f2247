package postgres_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/testenv"
)

// TestSpecTLSAgainstTheServer turns TLS on in the test server with a
// certificate for 127.0.0.1 signed by a test CA, and connects with DSNs
// that say sslmode=disable: spec.tls alone must make the connection use
// TLS, verified against the CA it names.
func TestSpecTLSAgainstTheServer(t *testing.T) {
	caPEM := enableServerTLS(t)
	otherCA, _, _ := newCA(t)
	for _, c := range []struct {
		name      string
		tls       *v1alpha1.TLSConfig
		permanent bool // else the write succeeds over TLS
	}{
		{"the CA of caBundle verifies the server", &v1alpha1.TLSConfig{CABundle: string(caPEM)}, false},
		{"insecureSkipVerify connects without verifying", &v1alpha1.TLSConfig{InsecureSkipVerify: true}, false},
		{"another CA is a permanent error", &v1alpha1.TLSConfig{CABundle: string(otherCA)}, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			dsn := newDatabase(t)
			s := spec("public", "inventory", v1alpha1.ProvisionEnsure)
			s.TLS = c.tls
			k := open(t, dsn, s)
			err := k.Write(context.Background(), snap(t, "c", web, 1, row("a", 1)))
			if c.permanent {
				if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "certificate") {
					t.Fatalf("write returned %v, want a permanent certificate error", err)
				}
				return
			}
			if err != nil {
				t.Fatalf("write: %v", err)
			}
			var ssl bool
			err = connect(t, dsn).QueryRow(context.Background(), `SELECT bool_and(s.ssl) FROM pg_stat_ssl s
JOIN pg_stat_activity a USING (pid) WHERE a.application_name = 'kollect-database-exporter' AND a.datname = current_database()`).Scan(&ssl)
			if err != nil || !ssl {
				t.Fatalf("the sink's connections use TLS: %v (err %v)", ssl, err)
			}
		})
	}
}

// enableServerTLS gives the server a certificate for 127.0.0.1 and turns
// ssl on (a reload suffices); clients asking for no TLS are unaffected. It
// returns the CA's PEM and turns ssl off again when the test ends.
func enableServerTLS(t *testing.T) []byte {
	t.Helper()
	caPEM, ca, caKey := newCA(t)
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(2), Subject: pkix.Name{CommonName: "127.0.0.1"},
		IPAddresses: []net.IP{net.ParseIP("127.0.0.1")}, NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, ca, &key.PublicKey, caKey)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(server.Dir, "data")
	var st syscall.Stat_t
	if err := syscall.Stat(data, &st); err != nil {
		t.Fatal(err)
	}
	for name, block := range map[string]*pem.Block{"server.crt": {Type: "CERTIFICATE", Bytes: der}, "server.key": {Type: "EC PRIVATE KEY", Bytes: keyDER}} {
		p := filepath.Join(data, name)
		if err := os.WriteFile(p, pem.EncodeToMemory(block), 0o600); err != nil {
			t.Fatal(err)
		}
		if err := os.Chown(p, int(st.Uid), int(st.Gid)); err != nil {
			t.Fatal(err)
		}
	}
	c := connect(t, server.DSN)
	exec(t, c, `ALTER SYSTEM SET ssl = on`, `SELECT pg_reload_conf()`)
	t.Cleanup(func() {
		exec(t, c, `ALTER SYSTEM RESET ssl`, `SELECT pg_reload_conf()`)
	})
	var on string
	if testenv.Poll(t.Context(), 10*time.Second, func() error {
		if err := connect(t, server.DSN).QueryRow(context.Background(), `SHOW ssl`).Scan(&on); err != nil {
			t.Fatal(err)
		}
		if on != "on" {
			return errors.New("ssl is off")
		}
		return nil
	}, testenv.Every(50*time.Millisecond)) != nil {
		t.Fatalf("ssl is still %q after the reload; server log:\n%s", on, tail(server.LogFile))
	}
	return caPEM
}

func newCA(t *testing.T) ([]byte, *x509.Certificate, *ecdsa.PrivateKey) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kollect test CA"},
		NotBefore: time.Now().Add(-time.Hour), NotAfter: time.Now().Add(time.Hour), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}), cert, key
}

func tail(path string) string {
	b, _ := os.ReadFile(path)
	if len(b) > 2000 {
		b = b[len(b)-2000:]
	}
	return string(b)
}
