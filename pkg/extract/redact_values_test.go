package extract

import (
	"flag"
	"math"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
)

func TestValueDetectors(t *testing.T) {
	r := NewRules()
	tests := []struct {
		name  string
		value string
		want  bool
	}{
		{"a URL with a password", "postgres://app:s3cr3t@db:5432/app", true},
		{"a URL with a token as the user", "https://ghp_0123456789abcdefghijklmn@github.com/o/r.git", true},
		{"a URL with a plain user", "ssh://git@github.com/o/r.git", false},
		{"a URL with an empty password", "https://user:@host/x", false},
		{"a URL with a token in the query", "https://hooks.example.com/x?token=abc", true},
		{"a URL without credentials", "https://example.com:8443/path?page=2", false},
		{"a key=value connection string", "host=db user=app password=s3cr3t sslmode=require", true},
		{"an ADO.NET connection string", "Server=db;Database=app;Password=s3cr3t;", true},
		{"a shell assignment", "PGPASSWORD=s3cr3t psql -h db", true},
		{"a flag with a value", "run --api-key=abc", true},
		{"a lone flag then its value", "mysql -u root --password s3cr3t", true},
		{"a lone flag then another flag", "tool --token --verbose", false},
		{"YAML text", "user: app\npassword: s3cr3t\n", true},
		{"JSON text with a sensitive key", `{"auth": {"password": "x"}}`, true},
		{"JSON text holding an env entry", `[{"name":"DB_PASSWORD","value":"x"}]`, true},
		{"YAML text naming a sensitive env var", "- name: API_TOKEN\n  value: x", true},
		{"JSON text without secrets", `{"replicas": 3, "image": "app:1"}`, false},
		{"an empty assignment", "password=", false},
		{"a PEM private key", "-----BEGIN RSA PRIVATE KEY-----\nMIIE...\n-----END RSA PRIVATE KEY-----", true},
		{"a PEM certificate", "-----BEGIN CERTIFICATE-----\nMIIB...\n-----END CERTIFICATE-----", false},
		{"a JWT", "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0In0.c2lnbmF0dXJl", true},
		{"eyJ without a JWT's shape", "eyJhbGciOiJIUzI1NiJ9 alone", false},
		{"an AWS access key id", "AKIAIOSFODNN7EXAMPLE", true},
		{"an AWS session key id in text", "key ASIAIOSFODNN7EXAMPLE here", true},
		{"AKIA inside a longer word", "XAKIAIOSFODNN7EXAMPLEX", false},
		{"an image reference", "registry.example.com/shop/checkout:2.14.1", false},
		{"a label selector", "app=web,tier!=db", false},
		{"a comparison", "a==b", false},
		{"a time", "10:30", false},
		{"a short string", "pw=", false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := r.sensitiveValue(tc.value); got != tc.want {
				t.Errorf("sensitiveValue(%q) = %v, want %v", tc.value, got, tc.want)
			}
		})
	}
}

// TestValueDetectorsStayLinear scans runs of each pattern that could make a
// detector rescan what it read (a name before "=", a run of "eyJ", dashes
// before a flag, ...) at n and 4n bytes: a linear scan takes about 4 times
// as long on the longer run, a quadratic one 16 times. Times are this
// thread's CPU time, the best of 5, so a loaded machine does not move them.
func TestValueDetectorsStayLinear(t *testing.T) {
	r := NewRules()
	const n, maxRatio = 16 << 10, 10.0
	for _, unit := range []string{"name:", "eyJ", "a=", "-----BEGIN ", " --token", "://"} {
		t.Run(strings.TrimSpace(unit), func(t *testing.T) {
			short, long := strings.Repeat(unit, n/len(unit)), strings.Repeat(unit, 4*n/len(unit))
			reps := repsFor(func() { r.sensitiveValue(short) }, 2*time.Millisecond)
			ts := bestOf(5, func() { r.sensitiveValue(short) }, reps)
			tl := bestOf(5, func() { r.sensitiveValue(long) }, reps)
			if ratio := float64(tl) / float64(ts); ratio > maxRatio {
				t.Errorf("scanning %d bytes of %q takes %s, %.1f times the %s of %d bytes: want at most %.0f (linear is 4, quadratic 16)",
					len(long), unit, tl/time.Duration(reps), ratio, ts/time.Duration(reps), len(short), maxRatio)
			}
		})
	}
}

// repsFor returns how many calls of f take at least d of CPU time.
func repsFor(f func(), d time.Duration) int {
	reps := 1
	for cpuTime(func() { repeat(f, reps) }) < d && reps < 1<<20 {
		reps *= 2
	}
	return reps
}

// bestOf returns the least CPU time of tries runs of reps calls of f.
func bestOf(tries int, f func(), reps int) time.Duration {
	best := time.Duration(math.MaxInt64)
	for range tries {
		best = min(best, cpuTime(func() { repeat(f, reps) }))
	}
	return best
}

func repeat(f func(), n int) {
	for range n {
		f()
	}
}

func TestCommandLines(t *testing.T) {
	m := sensitive()
	tests := []struct {
		name string
		in   string
		want any
	}{
		{"--name=value and -name=value with a sensitive name", `{"args": ["--password=x", "-token=y", "--port=80"]}`,
			map[string]any{"args": []any{m, m, "--port=80"}}},
		{"a lone sensitive flag redacts the next element", `{"command": ["app", "--client-secret", "x", "--v", "2"]}`,
			map[string]any{"command": []any{"app", "--client-secret", m, "--v", "2"}}},
		{"one-letter flags are not matched", `{"args": ["-p", "x"]}`,
			map[string]any{"args": []any{"-p", "x"}}},
		{"a sensitive flag as the last element", `{"args": ["--token"]}`,
			map[string]any{"args": []any{"--token"}}},
		{"lists under other keys are not command lines", `{"items": ["--token", "x"]}`,
			map[string]any{"items": []any{"--token", "x"}}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if diff := cmp.Diff(tc.want, NewRules().Redact(decodeObject(t, tc.in))); diff != "" {
				t.Errorf("Redact (-want +got):\n%s", diff)
			}
		})
	}
}

func TestOperatorRules(t *testing.T) {
	in := `{"password": "p", "internalId": "i", "metadata": {"annotations": {"kubectl.kubernetes.io/last-applied-configuration": "{}"}},
	  "env": [{"name": "X", "valueFrom": {"fieldRef": {}}}], "url": "https://u:p@h"}`
	tests := []struct {
		name string
		opts Options
		want map[string]any
	}{
		{"operator keys add to the defaults", Options{ScrubKeys: []string{"internalId"}},
			map[string]any{"password": sensitive(), "internalId": sensitive()}},
		{"dropping the defaults keeps the operator keys and the fixed rules", Options{ScrubKeys: []string{"internalId"}, NoDefaultScrubKeys: true},
			map[string]any{"password": "p", "internalId": sensitive()}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.opts.Rules().Redact(decodeObject(t, in)).(map[string]any)
			for k, want := range tc.want {
				if diff := cmp.Diff(want, got[k]); diff != "" {
					t.Errorf("%s (-want +got):\n%s", k, diff)
				}
			}
			fixed := map[string]any{
				"metadata": map[string]any{"annotations": map[string]any{lastAppliedAnnotation: sensitive()}},
				"env":      []any{map[string]any{"name": "X", "valueFrom": sensitive()}},
				"url":      Redacted(ReasonSensitiveValue),
			}
			for k, want := range fixed {
				if diff := cmp.Diff(want, got[k]); diff != "" {
					t.Errorf("fixed rule %s (-want +got):\n%s", k, diff)
				}
			}
		})
	}
}

func TestCELErrorsNeverQuoteValues(t *testing.T) {
	obj := decodeObject(t, `{"spec": {"x": "CANARY-ERR(", "n": "CANARY-NUM", "t": "CANARY-TS"}}`)
	tests := []struct {
		path, class string
	}{
		{`cel:"x".matches(object.spec.x)`, "invalid regular expression"},
		{`cel:int(object.spec.n)`, "type conversion error"},
		{`cel:timestamp(object.spec.t)`, "evaluate CEL"},
		{`cel:object.spec.x + 1`, "no matching overload"},
	}
	for _, tc := range tests {
		t.Run(tc.path, func(t *testing.T) {
			_, err := mustCompile(t, attrs(Attribute{Name: "v", Path: tc.path})).Extract(obj)
			if err == nil {
				t.Fatal("no error")
			}
			if strings.Contains(err.Error(), canary) || !strings.Contains(err.Error(), tc.class) || !strings.Contains(err.Error(), `attribute "v"`) {
				t.Errorf("error %q: want the attribute and %q, never the value", err, tc.class)
			}
		})
	}
}

func TestBindFlags(t *testing.T) {
	var o Options
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	o.BindFlags(fs)
	if err := fs.Parse([]string{"--redact-keys=a, b", "--scrub-keys", "c", "--redact-no-defaults", "--cel-cost-limit=7"}); err != nil {
		t.Fatal(err)
	}
	want := Options{ScrubKeys: []string{"a", "b", "c"}, NoDefaultScrubKeys: true, CELCostLimit: 7}
	if diff := cmp.Diff(want, o); diff != "" {
		t.Errorf("options (-want +got):\n%s", diff)
	}
}
