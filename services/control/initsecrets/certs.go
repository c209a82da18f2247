package initsecrets

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"fmt"
	"math/big"
	"slices"
	"time"

	corev1 "k8s.io/api/core/v1"
)

// Validity of the serving certificate and its CA, and how long before its
// end a run replaces it: each helm upgrade runs the hook, so an installation
// upgraded at least once a year never sees it expire.
const (
	validity    = 10 * 365 * 24 * time.Hour
	renewWithin = 365 * 24 * time.Hour
)

// usable reports whether data holds a key pair whose certificate names
// exactly hosts, chains to ca.crt and stays valid for more than renewWithin.
func usable(data map[string][]byte, hosts []string) bool {
	if _, err := tlsPair(data); err != nil {
		return false
	}
	b, _ := pem.Decode(data[corev1.TLSCertKey])
	leaf, err := x509.ParseCertificate(b.Bytes)
	if err != nil || time.Until(leaf.NotAfter) < renewWithin {
		return false
	}
	if !slices.Equal(slices.Sorted(slices.Values(leaf.DNSNames)), slices.Sorted(slices.Values(hosts))) {
		return false
	}
	roots := x509.NewCertPool()
	if !roots.AppendCertsFromPEM(data[corev1.ServiceAccountRootCAKey]) {
		return false
	}
	_, err = leaf.Verify(x509.VerifyOptions{Roots: roots, DNSName: hosts[0]})
	return err == nil
}

// generate makes a new CA and a serving certificate for hosts signed by it.
func generate(hosts []string) (map[string][]byte, error) {
	now := time.Now()
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate CA key: %w", err)
	}
	ca := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: hosts[0] + "-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate serving key: %w", err)
	}
	leaf := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: hosts[0]}, DNSNames: hosts,
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(validity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign serving certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode serving key: %w", err)
	}
	return map[string][]byte{
		corev1.ServiceAccountRootCAKey: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}),
		corev1.TLSCertKey:              pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		corev1.TLSPrivateKeyKey:        pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// serial is a random 128-bit certificate serial number.
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n
}

// tlsPair checks that tls.crt and tls.key of data are a key pair.
func tlsPair(data map[string][]byte) (tls.Certificate, error) {
	return tls.X509KeyPair(data[corev1.TLSCertKey], data[corev1.TLSPrivateKeyKey])
}
