package admission

import (
	"bytes"
	"context"
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

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Keys of the Secret that holds the self-managed certificate, shared by
// every replica so that one CA bundle serves them all.
const (
	keyCA   = "ca.crt"
	keyCert = corev1.TLSCertKey
	keyKey  = corev1.TLSPrivateKeyKey
)

// Validity of the self-managed certificates, and when they are renewed:
// with a third of their life left, so that a control that runs only now and
// then still renews months before the webhook would be refused.
const (
	certValidity = 365 * 24 * time.Hour
	renewBefore  = certValidity / 3
)

// EnsureCertificate reads the serving certificate from the Secret ns/name,
// creating it (a new CA and a certificate for hosts, valid a year) when it
// does not exist and renewing it when a third of its life is left, writes
// tls.crt and tls.key into dir and returns the CA bundle (the new CA and,
// while they are valid, the CAs before it, so that replicas still serving
// the old certificate are trusted until they load the new one).
func EnsureCertificate(ctx context.Context, c client.Client, ns, name, dir string, hosts []string) ([]byte, error) {
	s, err := ensureSecret(ctx, c, ns, name, hosts, time.Now())
	if err != nil {
		return nil, fmt.Errorf("ensure webhook certificate secret %s/%s: %w", ns, name, err)
	}
	if err := writeFiles(dir, s.Data); err != nil {
		return nil, err
	}
	return s.Data[keyCA], nil
}

// ensureSecret returns the certificate Secret, created or renewed as of now.
// Replicas racing to create or renew it agree on one: the loser of the
// create or of the optimistic update reads the winner's.
func ensureSecret(ctx context.Context, c client.Client, ns, name string, hosts []string, now time.Time) (*corev1.Secret, error) {
	key := client.ObjectKey{Namespace: ns, Name: name}
	var s corev1.Secret
	err := c.Get(ctx, key, &s)
	if apierrors.IsNotFound(err) {
		data, gerr := generate(hosts, now, nil)
		if gerr != nil {
			return nil, gerr
		}
		s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}, Type: corev1.SecretTypeTLS, Data: data}
		if err = c.Create(ctx, &s); apierrors.IsAlreadyExists(err) { // another replica won
			err = c.Get(ctx, key, &s)
		}
	}
	if err != nil {
		return nil, err
	}
	if notAfter, err := leafExpiry(s.Data); err == nil && notAfter.Sub(now) > renewBefore {
		return &s, nil
	}
	data, err := generate(hosts, now, s.Data[keyCA])
	if err != nil {
		return nil, err
	}
	s.Data = data
	if err := c.Update(ctx, &s); apierrors.IsConflict(err) { // another replica renewed it
		return &s, c.Get(ctx, key, &s)
	} else if err != nil {
		return nil, err
	}
	return &s, nil
}

// writeFiles writes tls.crt and tls.key into dir when they differ from what
// is there: the webhook server reloads them on change.
func writeFiles(dir string, data map[string][]byte) error {
	for _, k := range []string{keyCert, keyKey} {
		p := filepath.Join(dir, k)
		if old, err := os.ReadFile(p); err == nil && bytes.Equal(old, data[k]) { //nolint:gosec // G304: control's own certificate folder
			continue
		}
		if err := os.WriteFile(p, data[k], 0o600); err != nil {
			return fmt.Errorf("write webhook certificate %s: %w", k, err)
		}
	}
	return nil
}

// leafExpiry is the NotAfter of the serving certificate in data.
func leafExpiry(data map[string][]byte) (time.Time, error) {
	b, _ := pem.Decode(data[keyCert])
	if b == nil {
		return time.Time{}, fmt.Errorf("%s holds no PEM certificate", keyCert)
	}
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		return time.Time{}, err
	}
	return cert.NotAfter, nil
}

// stillValid returns the PEM certificates of bundle that are valid at now.
func stillValid(bundle []byte, now time.Time) []byte {
	var out []byte
	for b, rest := pem.Decode(bundle); b != nil; b, rest = pem.Decode(rest) {
		if cert, err := x509.ParseCertificate(b.Bytes); err == nil && now.Before(cert.NotAfter) {
			out = append(out, pem.EncodeToMemory(b)...)
		}
	}
	return out
}

// InjectCABundle sets caBundle on every webhook of the
// ValidatingWebhookConfiguration name.
func InjectCABundle(ctx context.Context, c client.Client, name string, ca []byte) error {
	var vwc admissionregistrationv1.ValidatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &vwc); err != nil {
		return fmt.Errorf("get validating webhook configuration %s: %w", name, err)
	}
	patch := client.MergeFrom(vwc.DeepCopy())
	for i := range vwc.Webhooks {
		vwc.Webhooks[i].ClientConfig.CABundle = ca
	}
	if err := c.Patch(ctx, &vwc, patch); err != nil {
		return fmt.Errorf("inject CA bundle into %s: %w", name, err)
	}
	// The mutating configuration of the same name records requesters; a
	// setup without it (an older chart) has only the validating one.
	var mwc admissionregistrationv1.MutatingWebhookConfiguration
	if err := c.Get(ctx, client.ObjectKey{Name: name}, &mwc); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("get mutating webhook configuration %s: %w", name, err)
	}
	mpatch := client.MergeFrom(mwc.DeepCopy())
	for i := range mwc.Webhooks {
		mwc.Webhooks[i].ClientConfig.CABundle = ca
	}
	if err := c.Patch(ctx, &mwc, mpatch); err != nil {
		return fmt.Errorf("inject CA bundle into mutating %s: %w", name, err)
	}
	return nil
}

// generate makes a new CA and serving certificate for hosts, valid from now
// for certValidity; the CA bundle is the new CA followed by the still valid
// certificates of previous.
func generate(hosts []string, now time.Time, previous []byte) (map[string][]byte, error) {
	caKey, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate webhook CA key: %w", err)
	}
	ca := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: "kollect-control-webhook-ca"},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certValidity), IsCA: true, BasicConstraintsValid: true,
		KeyUsage: x509.KeyUsageCertSign | x509.KeyUsageDigitalSignature}
	caDER, err := x509.CreateCertificate(rand.Reader, ca, ca, &caKey.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign webhook CA: %w", err)
	}
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, fmt.Errorf("generate webhook key: %w", err)
	}
	leaf := &x509.Certificate{SerialNumber: serial(), Subject: pkix.Name{CommonName: hosts[0]},
		NotBefore: now.Add(-time.Hour), NotAfter: now.Add(certValidity),
		KeyUsage: x509.KeyUsageDigitalSignature, ExtKeyUsage: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}
	for _, h := range hosts {
		if ip := net.ParseIP(h); ip != nil {
			leaf.IPAddresses = append(leaf.IPAddresses, ip)
		} else {
			leaf.DNSNames = append(leaf.DNSNames, h)
		}
	}
	der, err := x509.CreateCertificate(rand.Reader, leaf, ca, &key.PublicKey, caKey)
	if err != nil {
		return nil, fmt.Errorf("sign webhook certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, fmt.Errorf("encode webhook key: %w", err)
	}
	return map[string][]byte{
		keyCA:   append(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: caDER}), stillValid(previous, now)...),
		keyCert: pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		keyKey:  pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}),
	}, nil
}

// serial is a random 128-bit certificate serial number (RFC 5280 asks for
// unique serials per CA; renewals make new CAs and leaves).
func serial() *big.Int {
	n, _ := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 128))
	return n
}
