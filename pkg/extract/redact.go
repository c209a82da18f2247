package extract

import (
	"maps"
	"strings"
)

// DefaultScrubKeys is the built-in denylist (CONTRACT.md, Redaction). A map key matches an
// entry case-insensitively, exactly or as a suffix: "dbPassword" and "DB_PASSWORD" match
// "password".
var DefaultScrubKeys = []string{
	"password", "passwd", "secret", "token", "apikey", "api_key", "privatekey", "private_key",
	"credential", "auth", "clientsecret", "connectionstring",
}

// refBlockKeys are replaced wholesale wherever they appear: they point at secret material.
var refBlockKeys = []string{"valueFrom", "secretKeyRef", "secretRef"}

// Redaction reasons carried by the replacement value.
const (
	// ReasonSensitiveKey marks a value under a denylisted key, env value or reference block.
	ReasonSensitiveKey = "sensitive-key"
	// ReasonSecretData marks Secret data and stringData withheld from an embedded resource.
	ReasonSecretData = "secret-data"
)

// Redacted returns a fresh replacement value {"redacted": true, "reason": reason}.
func Redacted(reason string) map[string]any {
	return map[string]any{"redacted": true, "reason": reason}
}

// Rules is a redaction denylist: the defaults, plus operator and Profile scrubKeys. It is
// immutable once built and safe for concurrent use.
type Rules struct {
	keys []string // lower-case
	last [256]bool
}

// NewRules returns the default denylist extended with extra keys; empty keys are ignored.
func NewRules(extra ...string) *Rules {
	r := &Rules{}
	for _, k := range append(append([]string{}, DefaultScrubKeys...), extra...) {
		if k == "" {
			continue
		}
		k = strings.ToLower(k)
		r.keys = append(r.keys, k)
		r.last[k[len(k)-1]] = true
	}
	return r
}

// With returns rules extended with extra keys; r is unchanged.
func (r *Rules) With(extra ...string) *Rules {
	if len(extra) == 0 {
		return r
	}
	return NewRules(append(r.extraKeys(), extra...)...)
}

func (r *Rules) extraKeys() []string {
	return r.keys[len(DefaultScrubKeys):]
}

// SensitiveKey reports whether a map key, env var or attribute name is on the denylist.
func (r *Rules) SensitiveKey(key string) bool {
	if key == "" {
		return false
	}
	c := key[len(key)-1]
	if c >= 'A' && c <= 'Z' {
		c += 'a' - 'A'
	}
	if c < 0x80 && !r.last[c] {
		return false
	}
	for _, k := range r.keys {
		if len(key) >= len(k) && strings.EqualFold(key[len(key)-len(k):], k) {
			return true
		}
	}
	return false
}

func isRefBlock(key string) bool {
	for _, k := range refBlockKeys {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// Redact returns v with every sensitive value replaced, at any depth: values under denylisted
// keys, the value of {name, value} entries whose name is denylisted, and valueFrom,
// secretKeyRef and secretRef blocks. v is never modified: maps and lists on the way to a
// replacement are copied, everything else is shared.
func (r *Rules) Redact(v any) any {
	out, _ := r.redact(v)
	return out
}

func (r *Rules) redact(v any) (any, bool) {
	switch t := v.(type) {
	case map[string]any:
		return r.redactMap(t)
	case []any:
		if l, changed := editList(t, func(e any) (any, bool, bool) {
			ne, changed := r.redact(e)
			return ne, true, changed
		}); changed {
			return l, true
		}
	}
	return v, false // the caller's interface value: no new allocation
}

func (r *Rules) redactMap(m map[string]any) (map[string]any, bool) {
	var out map[string]any
	set := func(k string, v any) {
		if out == nil {
			out = maps.Clone(m)
		}
		out[k] = v
	}
	for k, v := range m {
		if r.SensitiveKey(k) || isRefBlock(k) {
			set(k, Redacted(ReasonSensitiveKey))
			continue
		}
		if nv, changed := r.redact(v); changed {
			set(k, nv)
		}
	}
	if name, ok := m["name"].(string); ok && r.SensitiveKey(name) {
		if _, ok := m["value"]; ok {
			set("value", Redacted(ReasonSensitiveKey))
		}
	}
	if out == nil {
		return m, false
	}
	return out, true
}

// editList applies f to every element: f returns the new element, whether to keep it and
// whether it changed. The list is copied only when something changed.
func editList(l []any, f func(e any) (ne any, keep, changed bool)) ([]any, bool) {
	var out []any
	for i, e := range l {
		ne, keep, changed := f(e)
		if !changed {
			if out != nil {
				out = append(out, e)
			}
			continue
		}
		if out == nil {
			out = make([]any, i, len(l))
			copy(out, l[:i])
		}
		if keep {
			out = append(out, ne)
		}
	}
	if out == nil {
		return l, false
	}
	return out, true
}
