package extract

import (
	"bytes"
	"compress/gzip"
	"encoding/base64"
	"strings"
	"testing"
)

func gz(t *testing.T, s string) string {
	t.Helper()
	var b bytes.Buffer
	w := gzip.NewWriter(&b)
	if _, err := w.Write([]byte(s)); err != nil {
		t.Fatal(err)
	}
	if err := w.Close(); err != nil {
		t.Fatal(err)
	}
	return b.String()
}

func b64(s string) string { return base64.StdEncoding.EncodeToString([]byte(s)) }

// TestEncodedValues is F16 of SECURITY-3: the value detectors run on the
// text inside base64 and gzip (ConfigMap binaryData, tools' compressed
// applied-object annotations), within bounds of size and depth.
func TestEncodedValues(t *testing.T) {
	r := NewRules()
	applied := `{"apiVersion":"v1","kind":"ConfigMap","data":{"db.conf":"host=db password=s3cr3t"}}`
	tests := []struct {
		name  string
		value string
		want  bool
	}{
		{"base64 of an assignment", b64("password=s3cr3t"), true},
		{"unpadded URL-safe base64 of a URL with a password", base64.RawURLEncoding.EncodeToString([]byte("postgres://app:s3cr3t@db/app?")), true},
		{"base64 of gzip of an applied object", b64(gz(t, applied)), true},
		{"raw gzip of a PEM private key", gz(t, "-----BEGIN PRIVATE KEY-----\nMIIE\n-----END PRIVATE KEY-----"), true},
		{"base64 of JSON holding base64 of a token assignment", b64(`{"note":"` + b64("token: abcdef") + `"}`), true},
		{"gzip inflating past the bound is withheld whole", b64(gz(t, strings.Repeat("a", maxDecoded+1))), true},
		{"base64 of harmless text", b64("replicas: 3\nimage: app:1\n"), false},
		{"base64 of gzip of harmless text", b64(gz(t, `{"replicas": 3}`)), false},
		{"a hex digest", "9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08", false},
		{"a word of the base64 alphabet", "kubernetesio", false},
		{"base64 of random bytes", base64.StdEncoding.EncodeToString([]byte{0x00, 0xff, 0x10, 0x80, 0x01, 0x02, 0x03, 0x04, 0x05}), false},
		{"an encoding nested deeper than the bound is not unwrapped", b64(b64(b64(b64("password=s3cr3t")))), false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.sensitiveValue(tc.value); got != tc.want {
				t.Errorf("sensitiveValue(%.60q) = %v, want %v", tc.value, got, tc.want)
			}
		})
	}
	t.Run("Redact withheld an encoded ConfigMap binaryData entry", func(t *testing.T) {
		obj := map[string]any{"binaryData": map[string]any{"app.conf.gz": b64(gz(t, applied)), "logo.png": b64("\x89PNG\r\n\x1a\n\x00")}}
		out, _ := r.walk(obj, nil)
		bd := out.(map[string]any)["binaryData"].(map[string]any) //nolint:forcetypeassert // the test's own shape
		if !isMarker(bd["app.conf.gz"]) || isMarker(bd["logo.png"]) {
			t.Fatalf("binaryData after redaction: %v, want app.conf.gz withheld and logo.png kept", bd)
		}
	})
}
