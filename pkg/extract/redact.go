package extract

import (
	"strings"
)

// refBlockKeys are replaced wholesale wherever they appear: they point at secret material.
var refBlockKeys = []string{"valueFrom", "secretKeyRef", "secretRef"}

// Redaction reasons carried by the replacement value.
const (
	// ReasonSensitiveKey marks a value under a sensitive key, an env or flag value, a
	// reference block or the last-applied annotation.
	ReasonSensitiveKey = "sensitive-key"
	// ReasonSecretData marks Secret data, stringData and annotations withheld without the
	// Profile's opt-in.
	ReasonSecretData = "secret-data"
	// ReasonSensitiveValue marks a string that holds a secret whatever its key: a URL with a
	// password, a PEM private key, a JWT, an AWS access key id, or an assignment of a
	// sensitive name ("password=...", "token: ..."), also inside base64 or gzip.
	ReasonSensitiveValue = "sensitive-value"
)

// Redacted returns a fresh replacement value {"redacted": true, "reason": reason}.
func Redacted(reason string) map[string]any {
	return map[string]any{"redacted": true, "reason": reason}
}

// markerReason reports whether m is a replacement value, and its reason.
func markerReason(m map[string]any) (string, bool) {
	if len(m) != 2 {
		return "", false
	}
	if b, _ := m["redacted"].(bool); !b {
		return "", false
	}
	reason, ok := m["reason"].(string)
	return reason, ok
}

// isMarker reports whether v is a replacement value.
func isMarker(v any) bool {
	m, ok := v.(map[string]any)
	if !ok {
		return false
	}
	_, ok = markerReason(m)
	return ok
}

// Rules is a redaction rule set: the name rule (the defaults unless dropped, plus operator
// and Profile scrubKeys) and the fixed rules (reference blocks, the last-applied annotation,
// value detectors). It is immutable once built and safe for concurrent use.
type Rules struct {
	names    nameRule
	defaults bool
	extra    []string
	// depth is how many encodings were unwrapped to reach the value being
	// checked (a copy of the rules checks decoded text): see
	// sensitiveEncoded.
	depth int
}

// NewRules returns the default rules extended with extra keys; empty keys are ignored.
func NewRules(extra ...string) *Rules {
	return newRules(true, extra)
}

// newRules builds rules with or without the default name entries.
func newRules(defaults bool, extra []string) *Rules {
	r := &Rules{defaults: defaults, extra: append([]string(nil), extra...)}
	if defaults {
		for _, k := range DefaultScrubKeys {
			r.names.add(k, false)
		}
		for _, k := range DefaultWordScrubKeys {
			r.names.add(k, true)
		}
	}
	for _, k := range extra {
		r.names.add(k, false)
	}
	return r
}

// With returns rules extended with extra keys; r is unchanged.
func (r *Rules) With(extra ...string) *Rules {
	if len(extra) == 0 {
		return r
	}
	return newRules(r.defaults, append(append([]string(nil), r.extra...), extra...))
}

// SensitiveKey reports whether a map key, env var, flag or attribute name matches the name
// rule (see DefaultScrubKeys).
func (r *Rules) SensitiveKey(key string) bool {
	return r.names.match(key)
}

// keyReason returns why the value under map key k is withheld, or "".
func (r *Rules) keyReason(k string) string {
	if k == lastAppliedAnnotation || isRefBlock(k) || r.names.match(k) {
		return ReasonSensitiveKey
	}
	return ""
}

func isRefBlock(key string) bool {
	if (len(key) != len("valueFrom") && len(key) != len("secretKeyRef")) || (key[0]|0x20 != 'v' && key[0]|0x20 != 's') {
		return false // the fast path: every other key
	}
	for _, k := range refBlockKeys {
		if strings.EqualFold(key, k) {
			return true
		}
	}
	return false
}

// Redact returns v with every sensitive value replaced, at any depth: values under sensitive
// keys, the value of {name, value} entries whose name is sensitive, values after sensitive
// flags in args and command lists, valueFrom, secretKeyRef and secretRef blocks, the
// last-applied annotation and strings a value detector recognises. v is never modified:
// maps and lists on the way to a replacement are copied, everything else is shared.
func (r *Rules) Redact(v any) any {
	out, _ := r.redact(v)
	return out
}

func (r *Rules) redact(v any) (any, bool) {
	return r.walk(v, nil)
}
