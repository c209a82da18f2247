package e2e

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
)

// PKI is the cluster's certificate authority and the files it issued, in Dir.
type PKI struct {
	Dir    string
	caCert *x509.Certificate
	caKey  crypto.Signer
}

// NewPKI creates a CA in dir (ca.crt, ca.key) and the service account signing key (sa.key, sa.pub).
func NewPKI(dir string) (*PKI, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("create pki folder: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "kollect-e2e-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		return nil, fmt.Errorf("create CA certificate: %w", err)
	}
	p := &PKI{Dir: dir, caKey: key}
	if p.caCert, err = x509.ParseCertificate(der); err != nil {
		return nil, fmt.Errorf("parse CA certificate: %w", err)
	}
	if err := p.write("ca", der, key); err != nil {
		return nil, err
	}
	sa, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate service account key: %w", err)
	}
	pub, err := x509.MarshalPKIXPublicKey(sa.Public())
	if err != nil {
		return nil, fmt.Errorf("marshal service account key: %w", err)
	}
	if err := writePEM(filepath.Join(dir, "sa.pub"), "PUBLIC KEY", pub); err != nil {
		return nil, err
	}
	return p, p.writeKey("sa", sa)
}

// Path is the path of a file the PKI wrote: "ca.crt", "admin.key", ...
func (p *PKI) Path(name string) string { return filepath.Join(p.Dir, name) }

// Issue signs a certificate for name (files name.crt, name.key) with subject cn and
// organisations orgs, valid for serving on hosts (DNS names or IPs) when given and as a client.
func (p *PKI) Issue(name, cn string, orgs []string, hosts ...string) error {
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return fmt.Errorf("generate key %s: %w", name, err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 62))
	if err != nil {
		return fmt.Errorf("serial %s: %w", name, err)
	}
	now := time.Now()
	tmpl := &x509.Certificate{
		SerialNumber: serial, Subject: pkix.Name{CommonName: cn, Organization: orgs},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(7 * 24 * time.Hour),
		KeyUsage:    x509.KeyUsageDigitalSignature,
		ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth},
	}
	if len(hosts) > 0 {
		tmpl.ExtKeyUsage = append(tmpl.ExtKeyUsage, x509.ExtKeyUsageServerAuth)
	}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			tmpl.IPAddresses = append(tmpl.IPAddresses, ip)
		} else {
			tmpl.DNSNames = append(tmpl.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, p.caCert, key.Public(), p.caKey)
	if err != nil {
		return fmt.Errorf("sign %s: %w", name, err)
	}
	return p.write(name, der, key)
}

func (p *PKI) write(name string, der []byte, key *ecdsa.PrivateKey) error {
	if err := writePEM(p.Path(name+".crt"), "CERTIFICATE", der); err != nil {
		return err
	}
	return p.writeKey(name, key)
}

func (p *PKI) writeKey(name string, key *ecdsa.PrivateKey) error {
	b, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return fmt.Errorf("marshal key %s: %w", name, err)
	}
	return writePEM(p.Path(name+".key"), "EC PRIVATE KEY", b)
}

func writePEM(path, typ string, der []byte) error {
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: typ, Bytes: der}), 0o600); err != nil {
		return fmt.Errorf("write %s: %w", path, err)
	}
	return nil
}
