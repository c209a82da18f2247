package bus

import (
	"errors"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"github.com/nats-io/nats-server/v2/server"
	"k8s.io/apimachinery/pkg/util/validation"
)

// validKVKey is the KV key rule of nats.go (jetstream keyValid).
var validKVKey = regexp.MustCompile(`^[-/_=.a-zA-Z0-9]+$`)

// checkToken fails t unless tok is one subject token and a valid KV key.
func checkToken(t *testing.T, s, tok string) {
	t.Helper()
	if !server.IsValidPublishSubject("kollect.test." + tok + ".x") {
		t.Errorf("EncodeToken(%q) = %q: not a valid subject token", s, tok)
	}
	if strings.Contains(tok, ".") {
		t.Errorf("EncodeToken(%q) = %q: spans more than one token", s, tok)
	}
	if !validKVKey.MatchString(tok) {
		t.Errorf("EncodeToken(%q) = %q: not a valid KV key", s, tok)
	}
}

func TestEncodeToken(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want string
	}{
		{"a DNS-1123 label is its own token", "team-a", "team-a"},
		{"dots of a DNS-1123 subdomain become underscores", "my.app.example.com", "my_app_example_com"},
		{"the empty namespace of cluster-scoped objects has a marker", "", EmptyToken},
		{"upper case letters stay as they are", "KollectTarget", "KollectTarget"},
		{"an underscore is escaped so it cannot be read as a dot", "a_b", "a=5Fb"},
		{"the escape character itself is escaped", "a=b", "a=3Db"},
		{"subject wildcards are escaped", "*.>", "=2A_=3E"},
		{"whitespace is escaped", "a b\t", "a=20b=09"},
		{"a slash is escaped", "ns/name", "ns=2Fname"},
		{"multi-byte UTF-8 is escaped byte by byte", "ä", "=C3=A4"},
		{"a lone dot is an underscore", ".", "_"},
		{"the marker text itself round-trips as a different token", "=cluster", "=3Dcluster"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got := EncodeToken(tt.in)
			if got != tt.want {
				t.Errorf("EncodeToken(%q) = %q, want %q", tt.in, got, tt.want)
			}
			checkToken(t, tt.in, got)
			back, err := DecodeToken(got)
			if err != nil || back != tt.in {
				t.Errorf("DecodeToken(%q) = %q, %v; want %q", got, back, err, tt.in)
			}
		})
	}
}

func TestDecodeTokenRejectsNonCanonicalTokens(t *testing.T) {
	tests := []struct {
		name string
		tok  string
	}{
		{"an empty token", ""},
		{"a token with a dot", "a.b"},
		{"a token with a wildcard", "a*"},
		{"a token with a slash", "a/b"},
		{"a truncated escape", "a=4"},
		{"an escape at the end", "a="},
		{"lower-case hex", "=3d"},
		{"non-hex digits", "=ZZ"},
		{"an escaped letter that has a literal form", "=41"},
		{"an escaped dash", "=2D"},
		{"an escaped dot, which is written as an underscore", "=2E"},
		{"a marker-like token that is not the marker", "=clusterx"},
	}
	for _, tt := range tests {
		t.Run("rejects "+tt.name, func(t *testing.T) {
			got, err := DecodeToken(tt.tok)
			if !errors.Is(err, ErrInvalidToken) {
				t.Errorf("DecodeToken(%q) = %q, %v; want ErrInvalidToken", tt.tok, got, err)
			}
		})
	}
}

func FuzzTokenRoundTrip(f *testing.F) {
	for _, s := range []string{
		"", "default", "kube-system", "my.app", "a.b.c.example.com", "0", "a-b-c",
		"=cluster", "_", "=", "..", ".a.", "a b", "*", ">", "$JS.API", "\x00", "\xff\xfe",
		"ü-ñ", "日本", "KollectTarget", "a=5Fb", strings.Repeat("x", 253),
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		tok := EncodeToken(s)
		checkToken(t, s, tok)
		back, err := DecodeToken(tok)
		if err != nil || back != s {
			t.Fatalf("DecodeToken(EncodeToken(%q)) = %q, %v", s, back, err)
		}
		// Canonical: whatever decodes re-encodes to the same token.
		if d, err := DecodeToken(s); err == nil && EncodeToken(d) != s {
			t.Fatalf("DecodeToken(%q) = %q but EncodeToken gives %q", s, d, EncodeToken(d))
		}
	})
}

// TestDNS1123NamesEncodeToReadableTokens checks the property on names drawn
// from a seeded generator: every DNS-1123 subdomain and label encodes to a
// valid token with no escape, only its dots changed to underscores.
func TestDNS1123NamesEncodeToReadableTokens(t *testing.T) {
	rng := rand.New(rand.NewPCG(1123, 2026))
	for i := range 5000 {
		name := randomDNS1123(rng)
		if errs := validation.IsDNS1123Subdomain(name); len(errs) > 0 {
			t.Fatalf("generator produced %q, not DNS-1123: %v", name, errs)
		}
		tok := EncodeToken(name)
		checkToken(t, name, tok)
		if want := strings.ReplaceAll(name, ".", "_"); tok != want {
			t.Fatalf("name %d: EncodeToken(%q) = %q, want %q", i, name, tok, want)
		}
		if back, err := DecodeToken(tok); err != nil || back != name {
			t.Fatalf("DecodeToken(%q) = %q, %v; want %q", tok, back, err, name)
		}
	}
}

// randomDNS1123 returns a DNS-1123 subdomain of one to five labels, up to 253
// bytes, each label up to 63 bytes, favouring short names and edge lengths.
func randomDNS1123(rng *rand.Rand) string {
	const alnum = "abcdefghijklmnopqrstuvwxyz0123456789"
	labels := make([]string, 1+rng.IntN(5))
	total := 0
	for i := range labels {
		n := 1 + rng.IntN(12)
		if rng.IntN(10) == 0 {
			n = 63
		}
		if total+n+1 > 253 {
			labels = labels[:i]
			break
		}
		b := make([]byte, n)
		for j := range b {
			b[j] = alnum[rng.IntN(len(alnum))]
			if j > 0 && j < n-1 && rng.IntN(4) == 0 {
				b[j] = '-'
			}
		}
		labels[i] = string(b)
		total += n + 1
	}
	return strings.Join(labels, ".")
}
