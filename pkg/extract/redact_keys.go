package extract

import "strings"

// DefaultScrubKeys is the built-in name rule (docs/contract.md, Redaction). A key, env var
// name, flag name or attribute name matches an entry when, compared case-insensitively and
// ignoring the separators "_", "-", "." and " ", it equals the entry or ends with it, also
// with one trailing "s" (plurals): "DB_PASSWORD", "dbPassword", "AWS_SECRET_ACCESS_KEY",
// "tls.key", "x-api-key" and "credentials" all match, and so do names with trailing digits
// ("DB_PASSWORD_2"). A name made of "__"-separated parts (.NET configuration:
// "ConnectionStrings__Default") matches when any part does.
var DefaultScrubKeys = []string{
	"password", "passwd", "passphrase", "pwd", "secret", "token", "apikey", "privatekey",
	"privatekeypem", "credential", "auth", "authorization", "bearer", "cookie", "jwt",
	"clientsecret", "connectionstring", "dsn", "accesskey", "accesskeyid", "secretkey",
	"signingkey", "encryptionkey", "sshkey", "tlskey", "masterkey", "sessionkey", "clientkey",
	"clientkeydata",
	"dockerconfigjson", "dockercfg", "webhookurl",
}

// DefaultWordScrubKeys are built-in entries that match only as a whole word: the name equals
// the entry, or the entry starts after a separator or at a lower-to-upper case change.
// "DB_PASS" and "dbPass" match "pass"; "bypass" and "compass" do not.
var DefaultWordScrubKeys = []string{"pass"}

// lastAppliedAnnotation holds a copy of the whole object as kubectl last applied it,
// environment values included: it is always redacted, whatever the rules.
const lastAppliedAnnotation = "kubectl.kubernetes.io/last-applied-configuration"

// tailFilterBits sizes the filter on the last three normalized bytes of a name.
const tailFilterBits = 4096

// keyEntry is one normalized entry of the name rule.
type keyEntry struct {
	s    string // lower case, separators removed
	word bool   // matches only as a whole word
}

// nameRule is the compiled name rule: entries plus a filter on their last three bytes, so
// most names are rejected after one bit test.
type nameRule struct {
	entries []keyEntry
	short   []keyEntry // entries under three bytes, which the filter cannot index
	filter  [tailFilterBits / 64]uint64
	maxLen  int
}

func (n *nameRule) add(key string, word bool) {
	s := normalizeKey(key)
	if s == "" {
		return
	}
	for _, e := range n.entries {
		if e.s == s && e.word == word {
			return
		}
	}
	e := keyEntry{s: s, word: word}
	n.maxLen = max(n.maxLen, len(s))
	if len(s) < 3 {
		n.short = append(n.short, e)
		return
	}
	n.entries = append(n.entries, e)
	h := tailHash([]byte(s))
	n.filter[h/64] |= 1 << (h % 64)
}

// normalizeKey lower-cases ASCII letters and drops the separators.
func normalizeKey(k string) string {
	var b strings.Builder
	for i := 0; i < len(k); i++ {
		if c, ok := normalByte(k[i]); ok {
			b.WriteByte(c)
		}
	}
	return b.String()
}

func normalByte(c byte) (byte, bool) {
	switch {
	case c == '_' || c == '-' || c == '.' || c == ' ':
		return 0, false
	case 'A' <= c && c <= 'Z':
		return c + 'a' - 'A', true
	}
	return c, true
}

func tailHash(t []byte) uint {
	n := len(t)
	return (uint(t[n-3])*961 + uint(t[n-2])*31 + uint(t[n-1])) % tailFilterBits
}

// normalTail writes the normalized end of key into buf, at most len(buf) bytes.
func normalTail(key string, buf []byte) []byte {
	i := len(buf)
	for j := len(key) - 1; j >= 0 && i > 0; j-- {
		if c, ok := normalByte(key[j]); ok {
			i--
			buf[i] = c
		}
	}
	return buf[i:]
}

// match reports whether key matches an entry, alone, through a plural or without trailing
// digits ("DB_PASSWORD_2", "oauth2").
func (n *nameRule) match(key string) bool {
	if n.matchName(key) {
		return true
	}
	t := key
	for len(t) > 0 && '0' <= t[len(t)-1] && t[len(t)-1] <= '9' {
		t = t[:len(t)-1]
	}
	return len(t) < len(key) && n.matchName(t)
}

func (n *nameRule) matchName(key string) bool {
	if key == "" || n.maxLen == 0 || !n.maybe(key) {
		return false
	}
	var stack [64]byte
	buf := stack[:]
	if n.maxLen+1 > len(buf) {
		buf = make([]byte, n.maxLen+1)
	}
	t := normalTail(key, buf[:n.maxLen+1])
	if n.matchTail(key, t, 0) || (len(t) > 1 && t[len(t)-1] == 's' && n.matchTail(key, t[:len(t)-1], 1)) {
		return true
	}
	if strings.Contains(key, "__") {
		parts := strings.Split(key, "__")
		for _, p := range parts[:len(parts)-1] {
			if n.matchName(p) {
				return true
			}
		}
	}
	return false
}

// maybe is the fast path: false when neither the last three normalized bytes of key, nor the
// three before a trailing "s", end an entry, and key has no "__" parts.
func (n *nameRule) maybe(key string) bool {
	if len(n.short) > 0 {
		return true
	}
	var last [4]byte
	got := 0
	for j := len(key) - 1; j >= 0 && got < 4; j-- {
		if c, ok := normalByte(key[j]); ok {
			got++
			last[4-got] = c
		}
	}
	t := last[4-got:]
	switch {
	case got >= 3 && n.inFilter(t[got-3:]):
		return true
	case got == 4 && t[3] == 's' && n.inFilter(t[:3]):
		return true
	}
	return strings.IndexByte(key, '_') >= 0 && strings.Contains(key, "__")
}

func (n *nameRule) inFilter(t []byte) bool {
	h := tailHash(t)
	return n.filter[h/64]&(1<<(h%64)) != 0
}

// matchTail checks the normalized tail t; plural is how many bytes were cut from its end.
func (n *nameRule) matchTail(key string, t []byte, plural int) bool {
	for _, e := range n.short {
		if hasSuffix(t, e.s) && (!e.word || wordStart(key, len(e.s)+plural)) {
			return true
		}
	}
	if len(t) < 3 || !n.inFilter(t[len(t)-3:]) {
		return false
	}
	for _, e := range n.entries {
		if hasSuffix(t, e.s) && (!e.word || wordStart(key, len(e.s)+plural)) {
			return true
		}
	}
	return false
}

func hasSuffix(t []byte, s string) bool {
	return len(t) >= len(s) && string(t[len(t)-len(s):]) == s
}

// wordStart reports whether the last n normalized bytes of key start a word: at the start of
// key, after a separator, or at a lower-to-upper case change.
func wordStart(key string, n int) bool {
	i := len(key)
	for i > 0 && n > 0 {
		i--
		if _, ok := normalByte(key[i]); ok {
			n--
		}
	}
	if i == 0 {
		return true
	}
	prev, cur := key[i-1], key[i]
	if _, ok := normalByte(prev); !ok {
		return true
	}
	return 'a' <= prev && prev <= 'z' && 'A' <= cur && cur <= 'Z'
}
