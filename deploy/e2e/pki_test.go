package e2e

import (
	"crypto/x509"
	"encoding/pem"
	"os"
	"testing"
)

func readCert(t *testing.T, path string) *x509.Certificate {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	blk, _ := pem.Decode(b)
	if blk == nil {
		t.Fatalf("%s holds no PEM block", path)
	}
	c, err := x509.ParseCertificate(blk.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func TestPKIIssuesCertificatesTheComponentsVerify(t *testing.T) {
	p, err := NewPKI(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	if err := p.Issue("apiserver", "kube-apiserver", nil, "192.0.2.2", "10.0.0.1", "kubernetes.default.svc"); err != nil {
		t.Fatal(err)
	}
	if err := p.Issue("node", "system:node:n1", []string{"system:nodes"}); err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AddCert(readCert(t, p.Path("ca.crt")))

	t.Run("a serving certificate verifies for each of its names and not for others", func(t *testing.T) {
		c := readCert(t, p.Path("apiserver.crt"))
		for _, host := range []string{"192.0.2.2", "10.0.0.1", "kubernetes.default.svc"} {
			if _, err := c.Verify(x509.VerifyOptions{Roots: roots, DNSName: host, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err != nil {
				t.Errorf("%s: %v", host, err)
			}
		}
		if _, err := c.Verify(x509.VerifyOptions{Roots: roots, DNSName: "example.com"}); err == nil {
			t.Error("verified for example.com")
		}
	})
	t.Run("a client certificate carries the user and groups and cannot serve", func(t *testing.T) {
		c := readCert(t, p.Path("node.crt"))
		if c.Subject.CommonName != "system:node:n1" || len(c.Subject.Organization) != 1 || c.Subject.Organization[0] != "system:nodes" {
			t.Errorf("subject %v", c.Subject)
		}
		if _, err := c.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err != nil {
			t.Error(err)
		}
		if _, err := c.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth}}); err == nil {
			t.Error("a client certificate verified for serving")
		}
	})
	t.Run("keys are readable only by their owner", func(t *testing.T) {
		for _, f := range []string{"ca.key", "sa.key", "node.key"} {
			st, err := os.Stat(p.Path(f))
			if err != nil {
				t.Fatal(err)
			}
			if st.Mode().Perm() != 0o600 {
				t.Errorf("%s mode %v", f, st.Mode().Perm())
			}
		}
	})
}

func TestFirstIPIsTheKubernetesServiceAddress(t *testing.T) {
	for cidr, want := range map[string]string{"10.0.0.0/24": "10.0.0.1", "10.96.0.0/12": "10.96.0.1"} {
		got, err := firstIP(cidr)
		if err != nil || got != want {
			t.Errorf("firstIP(%s) = %q, %v; want %s", cidr, got, err, want)
		}
	}
	if _, err := firstIP("fd00::/108"); err == nil {
		t.Error("an IPv6 range was accepted")
	}
}
