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
	f, err := NewTLSFiles(dir, hosts...)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// NewTLSFiles is WriteTLSFiles for callers without a test (the demo).
func NewTLSFiles(dir string, hosts ...string) (TLSFiles, error) {
	return writeTLSFiles(dir, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}, hosts)
}

// WritePeerTLSFiles is WriteTLSFiles with a server certificate that is a
// client certificate too, as servers that dial each other (NATS routes)
// present it both ways.
func WritePeerTLSFiles(t testing.TB, dir string, hosts ...string) TLSFiles {
	t.Helper()
	f, err := writeTLSFiles(dir, []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth, x509.ExtKeyUsageClientAuth}, hosts)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func writeTLSFiles(dir string, serverUsage []x509.ExtKeyUsage, hosts []string) (TLSFiles, error) {
	caKey, caCert, caDER, err := newCert(nil, nil, &x509.Certificate{
		Subject: pkix.Name{CommonName: "kollect test CA"}, IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	})
	if err != nil {
		return TLSFiles{}, err
	}
	server := &x509.Certificate{Subject: pkix.Name{CommonName: hosts[0]}, KeyUsage: x509.KeyUsageDigitalSignature,
		ExtKeyUsage: serverUsage}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			server.IPAddresses = append(server.IPAddresses, ip)
		} else {
			server.DNSNames = append(server.DNSNames, h)
		}
	}
	serverKey, _, serverDER, err := newCert(caCert, caKey, server)
	if err != nil {
		return TLSFiles{}, err
	}
	clientKey, _, clientDER, err := newCert(caCert, caKey, &x509.Certificate{Subject: pkix.Name{CommonName: "kollect test client"},
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		return TLSFiles{}, err
	}
	f := TLSFiles{CA: filepath.Join(dir, "ca.crt"), ServerCert: filepath.Join(dir, "tls.crt"), ServerKey: filepath.Join(dir, "tls.key"),
		ClientCert: filepath.Join(dir, "client.crt"), ClientKey: filepath.Join(dir, "client.key")}
	serverKeyDER, err := x509.MarshalECPrivateKey(serverKey)
	if err != nil {
		return TLSFiles{}, err
	}
	clientKeyDER, err := x509.MarshalECPrivateKey(clientKey)
	if err != nil {
		return TLSFiles{}, err
	}
	for _, w := range []struct {
		path, typ string
		der       []byte
	}{{f.CA, "CERTIFICATE", caDER}, {f.ServerCert, "CERTIFICATE", serverDER}, {f.ServerKey, "EC PRIVATE KEY", serverKeyDER},
		{f.ClientCert, "CERTIFICATE", clientDER}, {f.ClientKey, "EC PRIVATE KEY", clientKeyDER}} {
		if err := os.WriteFile(w.path, pem.EncodeToMemory(&pem.Block{Type: w.typ, Bytes: w.der}), 0o600); err != nil {
			return TLSFiles{}, err
		}
	}
	return f, nil
}

// newCert creates a key and a certificate from tmpl, signed by parent and
// parentKey, or self-signed when parent is nil.
func newCert(parent *x509.Certificate, parentKey *ecdsa.PrivateKey, tmpl *x509.Certificate) (*ecdsa.PrivateKey, *x509.Certificate, []byte, error) {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, nil, err
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return nil, nil, nil, err
	}
	tmpl.SerialNumber = serial
	tmpl.NotBefore = time.Now().Add(-time.Hour)
	tmpl.NotAfter = time.Now().Add(24 * time.Hour)
	if parent == nil {
		parent, parentKey = tmpl, key
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, &key.PublicKey, parentKey)
	if err != nil {
		return nil, nil, nil, err
	}
	cert, err := x509.ParseCertificate(der)
	if err != nil {
		return nil, nil, nil, err
	}
	return key, cert, der, nil
}
