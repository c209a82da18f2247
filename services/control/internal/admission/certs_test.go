package admission

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus/testutil"
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/testenv"
)

var hosts = []string{"kollect-control-webhook.kollect-system.svc", "127.0.0.1"}

// verifies reports whether the PEM certificate leaf is trusted by the PEM
// bundle ca for the first host at now.
func verifies(t *testing.T, ca, leaf []byte, now time.Time) bool {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(ca) {
		t.Fatal("the CA bundle holds no certificate")
	}
	b, _ := pem.Decode(leaf)
	cert, err := x509.ParseCertificate(b.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	_, err = cert.Verify(x509.VerifyOptions{Roots: pool, DNSName: hosts[0], CurrentTime: now})
	return err == nil
}

func TestSelfManagedCertificate(t *testing.T) {
	k := testenv.StartKube(t)
	ctx := t.Context()
	c := k.Client
	if err := c.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kollect-system"}}); err != nil {
		t.Fatal(err)
	}
	now := time.Now()
	key := client.ObjectKey{Namespace: "kollect-system", Name: "webhook-cert"}
	get := func() *corev1.Secret {
		var s corev1.Secret
		if err := c.Get(ctx, key, &s); err != nil {
			t.Fatal(err)
		}
		return &s
	}

	t.Run("is created once, valid a year, for every host, and written to the folder", func(t *testing.T) {
		dir := t.TempDir()
		ca, err := EnsureCertificate(ctx, c, key.Namespace, key.Name, dir, hosts)
		if err != nil {
			t.Fatal(err)
		}
		leaf, _ := os.ReadFile(filepath.Join(dir, corev1.TLSCertKey))
		if !verifies(t, ca, leaf, now) {
			t.Error("the written certificate is not trusted by the returned CA")
		}
		if notAfter, _ := leafExpiry(get().Data); notAfter.Sub(now) < certValidity-time.Hour || notAfter.Sub(now) > certValidity {
			t.Errorf("the certificate expires %v, want in a year", notAfter)
		}
		again, err := EnsureCertificate(ctx, c, key.Namespace, key.Name, t.TempDir(), hosts)
		if err != nil || string(again) != string(ca) {
			t.Errorf("a second replica got another CA (err %v)", err)
		}
	})

	t.Run("is not renewed while more than a third of its life is left", func(t *testing.T) {
		before := get()
		s, err := ensureSecret(ctx, c, key.Namespace, key.Name, hosts, now.Add(certValidity-renewBefore-time.Hour))
		if err != nil || s.ResourceVersion != before.ResourceVersion {
			t.Errorf("renewed early: resourceVersion %s -> %s (err %v)", before.ResourceVersion, s.ResourceVersion, err)
		}
	})

	t.Run("is renewed by one of two racing replicas; the bundle trusts the old and the new certificate", func(t *testing.T) {
		old := get()
		later := now.Add(certValidity - renewBefore + time.Hour)
		var wg sync.WaitGroup
		got := make([]*corev1.Secret, 2)
		errs := make([]error, 2)
		for i := range got {
			wg.Go(func() { got[i], errs[i] = ensureSecret(ctx, c, key.Namespace, key.Name, hosts, later) })
		}
		wg.Wait()
		for i := range got {
			if errs[i] != nil {
				t.Fatalf("replica %d: %v", i, errs[i])
			}
		}
		if string(got[0].Data[corev1.TLSCertKey]) != string(got[1].Data[corev1.TLSCertKey]) {
			t.Fatal("the two replicas ended with different certificates")
		}
		renewed := get()
		if string(renewed.Data[corev1.TLSCertKey]) == string(old.Data[corev1.TLSCertKey]) {
			t.Fatal("the certificate was not renewed")
		}
		ca := renewed.Data[keyCA]
		if !verifies(t, ca, renewed.Data[corev1.TLSCertKey], later) || !verifies(t, ca, old.Data[corev1.TLSCertKey], later) {
			t.Error("the CA bundle must trust the new certificate and, until it expires, the old one")
		}
		if notAfter, _ := leafExpiry(renewed.Data); notAfter.Sub(later) < certValidity-time.Hour {
			t.Errorf("the renewed certificate expires %v, want a year after %v", notAfter, later)
		}
	})

	t.Run("the keeper rewrites the files, injects the new bundle and reports the expiry", func(t *testing.T) {
		vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{ObjectMeta: metav1.ObjectMeta{Name: "kollect-control"},
			Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "validate.kollect.dev",
				ClientConfig:            admissionregistrationv1.WebhookClientConfig{URL: ptr.To("https://127.0.0.1:9443/validate")},
				SideEffects:             ptr.To(admissionregistrationv1.SideEffectClassNone),
				AdmissionReviewVersions: []string{"v1"}}}}
		if err := c.Create(ctx, vwc); err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		gauge := NewExpiryGauge()
		much := now.Add(3 * certValidity) // every certificate so far is due
		kp := &Keeper{Client: c, Namespace: key.Namespace, Secret: key.Name, Dir: dir, ConfigName: vwc.Name, Hosts: hosts,
			Every: time.Hour, Expiry: gauge, now: func() time.Time { return much }}
		if err := kp.check(ctx); err != nil {
			t.Fatal(err)
		}
		s := get()
		leaf, _ := os.ReadFile(filepath.Join(dir, corev1.TLSCertKey))
		if string(leaf) != string(s.Data[corev1.TLSCertKey]) {
			t.Error("the serving file is not the renewed certificate")
		}
		if err := c.Get(ctx, client.ObjectKeyFromObject(vwc), vwc); err != nil {
			t.Fatal(err)
		}
		if string(vwc.Webhooks[0].ClientConfig.CABundle) != string(s.Data[keyCA]) {
			t.Error("the webhook configuration does not carry the renewed CA bundle")
		}
		if verifies(t, s.Data[keyCA], s.Data[corev1.TLSCertKey], much) != true {
			t.Error("the renewed bundle does not trust the renewed certificate")
		}
		if n := len(pemBlocks(s.Data[keyCA])); n != 1 {
			t.Errorf("the bundle holds %d CAs, want only the new one: the others expired", n)
		}
		notAfter, _ := leafExpiry(s.Data)
		if got := testutil.ToFloat64(gauge); got != float64(notAfter.Unix()) {
			t.Errorf("%s = %v, want %d", ExpiryMetric, got, notAfter.Unix())
		}
	})
}

func pemBlocks(b []byte) []*pem.Block {
	var out []*pem.Block
	for p, rest := pem.Decode(b); p != nil; p, rest = pem.Decode(rest) {
		out = append(out, p)
	}
	return out
}
