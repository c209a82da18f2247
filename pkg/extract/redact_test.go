package extract

import (
	"testing"

	"github.com/google/go-cmp/cmp"
	"k8s.io/apimachinery/pkg/runtime"
)

func sensitive() map[string]any { return Redacted(ReasonSensitiveKey) }

func TestRedactionRules(t *testing.T) {
	tests := []struct {
		name  string
		extra []string
		in    string
		want  any
	}{
		{"a key equal to a denylist entry", nil,
			`{"password": "p", "user": "u"}`,
			map[string]any{"password": sensitive(), "user": "u"}},
		{"a key ending with an entry, any case", nil,
			`{"dbPassword": "p", "GITHUB_TOKEN": "t", "Private_Key": "k", "x-ApiKey": "a"}`,
			map[string]any{"dbPassword": sensitive(), "GITHUB_TOKEN": sensitive(), "Private_Key": sensitive(), "x-ApiKey": sensitive()}},
		{"keys merely containing an entry are kept", nil,
			`{"passwordPolicy": "strict", "author": "me", "tokenTTL": 3, "secretName": "s", "topologyKey": "zone", "bypass": true}`,
			map[string]any{"passwordPolicy": "strict", "author": "me", "tokenTTL": int64(3), "secretName": "s", "topologyKey": "zone", "bypass": true}},
		{"plurals match: a list of tokens is as sensitive as one", nil,
			`{"tokens": ["a", "b"], "credentials": {"u": "p"}, "passwords": 3}`,
			map[string]any{"tokens": sensitive(), "credentials": sensitive(), "passwords": sensitive()}},
		{"nested auth keys at any depth", nil,
			`{"spec": {"endpoints": [{"basicAuth": {"username": "u"}}, {"auth": "x", "path": "/m"}]}}`,
			map[string]any{"spec": map[string]any{"endpoints": []any{
				map[string]any{"basicAuth": sensitive()},
				map[string]any{"auth": sensitive(), "path": "/m"},
			}}}},
		{"an env var named like a password keeps its name and loses its value", nil,
			`{"env": [{"name": "DB_PASSWORD", "value": "hunter2"}, {"name": "LOG_LEVEL", "value": "info"}]}`,
			map[string]any{"env": []any{
				map[string]any{"name": "DB_PASSWORD", "value": sensitive()},
				map[string]any{"name": "LOG_LEVEL", "value": "info"},
			}}},
		{"valueFrom, secretKeyRef and secretRef blocks are replaced", nil,
			`{"env": [{"name": "POD", "valueFrom": {"fieldRef": {"fieldPath": "metadata.name"}}}],
			  "envFrom": [{"secretRef": {"name": "s"}}], "source": {"secretKeyRef": {"name": "s", "key": "k"}}}`,
			map[string]any{
				"env":     []any{map[string]any{"name": "POD", "valueFrom": sensitive()}},
				"envFrom": []any{map[string]any{"secretRef": sensitive()}},
				"source":  map[string]any{"secretKeyRef": sensitive()},
			}},
		{"extra scrub keys extend the denylist", []string{"Certificate"},
			`{"tls": {"clientCertificate": "c", "ca": "a"}}`,
			map[string]any{"tls": map[string]any{"clientCertificate": sensitive(), "ca": "a"}}},
		{"scalars and lists of scalars pass through", nil,
			`{"images": ["a", "b"], "n": 1}`,
			map[string]any{"images": []any{"a", "b"}, "n": int64(1)}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			in := decodeObject(t, tc.in)
			before := runtime.DeepCopyJSON(in)
			got := NewRules(tc.extra...).Redact(in)
			if diff := cmp.Diff(tc.want, got); diff != "" {
				t.Errorf("Redact (-want +got):\n%s", diff)
			}
			if diff := cmp.Diff(before, in); diff != "" {
				t.Errorf("input modified (-before +after):\n%s", diff)
			}
		})
	}
}

func TestRedactionSharesWhatItDoesNotChange(t *testing.T) {
	in := decodeObject(t, `{"keep": {"a": [1, 2]}, "change": {"token": "t"}}`)
	out := NewRules().Redact(in).(map[string]any)
	if !sameMap(in["keep"].(map[string]any), out["keep"].(map[string]any)) {
		t.Error("an unchanged subtree was copied")
	}
	if sameMap(in["change"].(map[string]any), out["change"].(map[string]any)) {
		t.Error("a changed subtree was not copied")
	}
	unchanged := decodeObject(t, `{"a": {"b": "c"}}`)
	if !sameMap(unchanged, NewRules().Redact(unchanged).(map[string]any)) {
		t.Error("an object without sensitive values was copied")
	}
}

// sameMap reports whether a and b are the same map (not merely equal).
func sameMap(a, b map[string]any) bool {
	const probe = "\x00probe"
	if len(a) != len(b) {
		return false
	}
	a[probe] = true
	_, same := b[probe]
	delete(a, probe)
	return same
}

func TestSensitiveKey(t *testing.T) {
	r := NewRules("x-Custom", "s3")
	for key, want := range map[string]bool{
		"password": true, "PASSWORD": true, "db_passwd": true, "clientSecret": true, "api_key": true,
		"connectionString": true, "awsCredential": true, "oauth": true, "my-x-custom": true, "S3": true,
		"": false, "name": false, "tokenTTL": false, "ünïcode": false,
		// Plurals and the entries the review found missing (RELIABILITY-SECURITY.md section 4).
		"passwords": true, "tokens": true, "secrets": true, "credentials": true, "Authorization": true,
		"AWS_SECRET_ACCESS_KEY": true, "AWS_ACCESS_KEY_ID": true, "secretKey": true, "SECRET_KEY": true,
		"secret_key": true, "api-key": true, "X-API-KEY": true, "SENTRY_DSN": true, "dsn": true,
		"passphrase": true, "DB_PASS": true, "dbPass": true, "pwd": true, "bearer": true, "cookie": true,
		"tls.key": true, "accessKey": true, "signingKey": true, "encryptionKey": true, "privateKeyPem": true,
		"SLACK_WEBHOOK_URL": true, ".dockerconfigjson": true, "ConnectionStrings__Default": true, "jwt": true,
		"client-key-data": true, "DB_PASSWORD_2": true, "oauth2": true, "token1": true,
		// Near misses stay: words that end like an entry without being one.
		"bypass": false, "compass": false, "key": false, "topologyKey": false, "keys": false, "status": false,
		"DATABASE_URL": false, "secretName": false, "passwordPolicy": false, "monkey": false, "http2": false, "sha256": false,
	} {
		if got := r.SensitiveKey(key); got != want {
			t.Errorf("SensitiveKey(%q) = %v, want %v", key, got, want)
		}
	}
}
