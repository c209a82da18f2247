package testenv

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// TLSFiles are the PEM files WriteTLSFiles writes: a CA, a server
// certificate it signed for the hosts and a client certificate it signed.
type TLSFiles struct {
	// CA is the CA certificate (ca.crt).
	CA string
	// ServerCert and ServerKey are the server's certificate and key
	// (tls.crt, tls.key), the names of a kubernetes.io/tls Secret.
	ServerCert, ServerKey string
	// ClientCert and ClientKey are a client certificate and key
	// (client.crt, client.key), for mutual TLS.
	ClientCert, ClientKey string
}

// WriteTLSFiles writes a new CA, a server certificate for hosts (DNS
// names or IP addresses) and a client certificate into dir, valid for a
// day, and returns their paths.
func WriteTLSFiles(t testing.TB, dir string, hosts ...string) TLSFiles {
	t.Helper()
	return writeTLSFiles(t, dir, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, hosts)
}

// WritePeerTLSFiles is WriteTLSFiles with a server certificate that is a
// client certificate too, as servers that dial each other (NATS routes)
// present it both ways.
func WritePeerTLSFiles(t testing.TB, dir string, hosts ...string) TLSFiles {
	t.Helper()
	return writeTLSFiles(t, dir, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, hosts)
}

func writeTLSFiles(t testing.TB, dir string, serverUsage []x509.ExtKeyUsage, hosts []string) TLSFiles {
	t.Helper()
	caKey, caCert, caDER := newCert(t, nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "kollect test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	})
	server := &x509.Certificate{Subject: pkix.Name{CommonName: hosts[0]}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: serverUsage}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			server.IPAddresses = append(server.IPAddresses, ip)
		} else {
			server.DNSNames = append(server.DNSNames, h)
		}
	}
	serverKey, _, serverDER := newCert(t, caCert, caKey, server)
	clientKey, _, clientDER := newCert(t, caCert, caKey, &x509.Certificate{Subject: pkix.Name{CommonName: "kollect test client"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	f := TLSFiles{CA: filepath.Join(dir, "ca.crt"), ServerCert: filepath.Join(dir, "tls.crt"), ServerKey: filepath.Join(dir, "tls.key"),
		ClientCert: filepath.Join(dir, "client.crt"), ClientKey: filepath.Join(dir, "client.key")}
	writePEM(t, f.CA, "CERTIFICATE", caDER)
	writePEM(t, f.ServerCert, "CERTIFICATE", serverDER)
	writePEM(t, f.ServerKey, "EC PRIVATE KEY", marshalKey(t, serverKey))
	writePEM(t, f.ClientCert, "CERTIFICATE", clientDER)
	writePEM(t, f.ClientKey, "EC PRIVATE KEY", marshalKey(t, clientKey))
	return f
}

// newCert creates a key and a certificate from tmpl, signed by parent and
// parentKey, or self-signed when parent is nil.
func newCert(t testing.TB, parent *x509.Certificate, parentKey *ecdsa.PrivateKey, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate, []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		t.Fatal(err)
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		t.Fatal(err)
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return key, cert, der
}

func marshalKey(t testing.TB, k *ecdsa.PrivateKey) []byte {
	t.Helper()
	b, err := x509.MarshalECPrivateKey(k)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func writePEM(t testing.TB, path, typ string, der []byte) {
	t.Helper()
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		t.Fatal(err)
	}
}
