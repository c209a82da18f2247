package extract

import (
	"strings"

	utiljson "k8s.io/apimachinery/pkg/util/json"
)

// maxEmbeddedJSON bounds the strings decoded as JSON to look for sensitive keys inside.
const maxEmbeddedJSON = 1 << 20

// sensitiveValue reports whether s holds a secret whatever the key it is under:
//   - a URL with a password ("postgres://user:pw@host") or a long user part (a token as the
//     user: "https://ghp_...@github.com"), and any assignment below;
//   - an assignment of a sensitive name: "password=x", "--token=x", "PGPASSWORD=x psql",
//     "Password=x;" (connection strings), "password: x" and "\"password\": \"x\"" (YAML
//     and JSON text), and "name: DB_PASSWORD" (an env entry written out as text);
//   - a lone sensitive flag followed by a value: "mysql --password x";
//   - a PEM private key block, a JWT ("eyJ...eyJ..."), an AWS access key id (AKIA/ASIA...);
//   - JSON text (starting with "{" or "[") holding anything the rules redact;
//   - base64 or gzip (bounded in size and depth) whose decoded text holds any of the above.
func (r *Rules) sensitiveValue(s string) bool {
	if len(s) < 4 {
		return false
	}
	for i := 0; i < len(s); i++ {
		var hit bool
		switch s[i] {
		case '=', ':':
			hit = r.assignmentAt(s, i)
		case '-':
			hit = pemAt(s, i) || r.loneFlagAt(s, i)
		case 'e':
			var next int
			if hit, next = jwtAt(s, i); !hit && next > i {
				i = next - 1 // every "eyJ" inside the run ends where this one does
			}
		case 'A':
			hit = awsKeyAt(s, i)
		}
		if hit {
			return true
		}
	}
	return r.sensitiveJSON(s) || r.sensitiveEncoded(s)
}

func isNameByte(c byte) bool {
	return c == '_' || c == '-' || c == '.' || c == '/' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// trimDashes drops the leading dashes of a flag (strings.TrimLeft builds a set on every call).
func trimDashes(s string) string {
	for len(s) > 0 && s[0] == '-' {
		s = s[1:]
	}
	return s
}

// assignmentAt checks the "=" or ":" at i: a URL's userinfo, or name=value / name: value
// with a sensitive name (or a sensitive name as the value of "name").
func (r *Rules) assignmentAt(s string, i int) bool {
	if s[i] == ':' && strings.HasPrefix(s[i+1:], "//") {
		return userinfoAt(s, i+3)
	}
	if s[i] == '=' && ((i+1 < len(s) && s[i+1] == '=') || (i > 0 && strings.IndexByte("=!<>", s[i-1]) >= 0)) {
		return false
	}
	end := i
	for end > 0 && isSpace(s[end-1]) {
		end--
	}
	if end > 0 && (s[end-1] == '"' || s[end-1] == '\'') {
		end--
	}
	start := end
	for start > 0 && isNameByte(s[start-1]) {
		start--
	}
	name := trimDashes(s[start:end])
	switch {
	case name == "":
		return false
	case r.names.match(name):
		return valueAfter(s, i+1) != ""
	case strings.EqualFold(name, "name") || strings.EqualFold(name, "key"):
		v := valueAfter(s, i+1)
		return v != "" && r.names.match(v)
	}
	return false
}

// maxValueToken bounds how far valueAfter reads, so scanning a long string stays linear.
const maxValueToken = 256

// valueAfter returns the token after a separator: spaces and one opening quote skipped, up
// to a space, quote or delimiter, at most maxValueToken bytes.
func valueAfter(s string, j int) string {
	for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
		j++
	}
	if j < len(s) && (s[j] == '"' || s[j] == '\'') {
		j++
	}
	k := j
	for k < len(s) && k-j < maxValueToken && !isSpace(s[k]) && strings.IndexByte("\"',;&)}]", s[k]) < 0 {
		k++
	}
	return s[j:k]
}

// userinfoAt checks the authority starting at j (after "://").
func userinfoAt(s string, j int) bool {
	k := j
	for k < len(s) && !isSpace(s[k]) && strings.IndexByte("/?#\"'", s[k]) < 0 {
		k++
	}
	authority := s[j:k]
	at := strings.LastIndexByte(authority, '@')
	if at <= 0 {
		return false
	}
	user := authority[:at]
	if c := strings.IndexByte(user, ':'); c >= 0 {
		return c < len(user)-1
	}
	return len(user) >= 20
}

// loneFlagAt checks for "--name value" starting at i, at the start of s or after a space.
func (r *Rules) loneFlagAt(s string, i int) bool {
	if i > 0 && !isSpace(s[i-1]) {
		return false
	}
	j := i
	for j < len(s) && s[j] == '-' {
		j++
	}
	k := j
	for k < len(s) && isNameByte(s[k]) {
		k++
	}
	if k-j < 2 || k >= len(s) || s[k] != ' ' || !r.names.match(s[j:k]) {
		return false
	}
	v := valueAfter(s, k+1)
	return v != "" && v[0] != '-'
}

// pemAt checks for "-----BEGIN ... PRIVATE KEY" at i.
func pemAt(s string, i int) bool {
	const begin = "-----BEGIN "
	if !strings.HasPrefix(s[i:], begin) {
		return false
	}
	label := s[i+len(begin):]
	if end := strings.Index(label, "-----"); end >= 0 {
		label = label[:end]
	}
	return strings.Contains(label, "PRIVATE KEY")
}

func isBase64URL(c byte) bool {
	return c == '-' || c == '_' || ('0' <= c && c <= '9') || ('a' <= c && c <= 'z') || ('A' <= c && c <= 'Z')
}

// jwtAt checks for a JWT at i: two base64url segments starting "eyJ" (a JSON object) joined
// by a dot, and a second dot. next is where the first segment ends (i when there is none).
func jwtAt(s string, i int) (hit bool, next int) {
	seg := func(j int) int { // end of a base64url segment starting "eyJ" at j, or -1
		if !strings.HasPrefix(s[j:], "eyJ") {
			return -1
		}
		k := j
		for k < len(s) && isBase64URL(s[k]) {
			k++
		}
		if k-j < 10 {
			return -1
		}
		return k
	}
	k := seg(i)
	if k < 0 {
		return false, i
	}
	if k >= len(s) || s[k] != '.' {
		return false, k
	}
	k2 := seg(k + 1)
	return k2 >= 0 && k2 < len(s) && s[k2] == '.', k
}

func isUpperAlnum(c byte) bool { return ('0' <= c && c <= '9') || ('A' <= c && c <= 'Z') }

// awsKeyAt checks for an AWS access key id at i: AKIA or ASIA and 16 upper-case letters or
// digits, as a whole word.
func awsKeyAt(s string, i int) bool {
	if !strings.HasPrefix(s[i:], "AKIA") && !strings.HasPrefix(s[i:], "ASIA") {
		return false
	}
	if i > 0 && isUpperAlnum(s[i-1]) || len(s) < i+20 {
		return false
	}
	for j := i + 4; j < i+20; j++ {
		if !isUpperAlnum(s[j]) {
			return false
		}
	}
	return len(s) == i+20 || !isUpperAlnum(s[i+20])
}

// sensitiveJSON decodes JSON text and reports whether the rules would redact anything in it.
func (r *Rules) sensitiveJSON(s string) bool {
	i := 0
	for i < len(s) && isSpace(s[i]) {
		i++
	}
	if i == len(s) || (s[i] != '{' && s[i] != '[') || len(s) > maxEmbeddedJSON {
		return false
	}
	t := s[i:]
	var v any
	if err := utiljson.Unmarshal([]byte(t), &v); err != nil {
		return false
	}
	_, changed := r.walk(v, nil)
	return changed
}
