package postgres

import (
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/pkg/sink"
)

// fileParams are connection parameters that make the driver read a file
// of the exporter's (a password file, a service file, TLS keys and
// certificates) while it parses the string. A tenant's DSN must not choose
// files of a shared process: TLS material comes from spec.tls instead.
var fileParams = []string{"passfile", "service", "servicefile", "sslcert", "sslkey", "sslrootcert"}

// refuseFileParams returns a permanent error naming the first such
// parameter of dsn (URL or keyword/value form), before anything parses it.
// sslrootcert=system (the system's CAs) reads no file of the tenant's
// choosing and is allowed.
func refuseFileParams(dsn, where string) error {
	params := keywordParams(dsn)
	if strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://") {
		u, err := url.Parse(dsn)
		if err != nil {
			return nil //nolint:nilerr // parse reports it without quoting the string
		}
		params = map[string]string{}
		for k, v := range u.Query() {
			params[k] = v[len(v)-1]
		}
	}
	for _, k := range fileParams {
		v, ok := params[k]
		if !ok || (k == "sslrootcert" && v == "system") {
			continue
		}
		return sink.Permanent(fmt.Errorf("%s sets %s, which makes the exporter read a local file; "+
			"give TLS material with spec.tls (caBundle or caSecretRef) and the password in the Secret", where, k))
	}
	return nil
}

// keywordParams splits a keyword/value connection string (host=h
// password='a b') into its parameters; values may be single-quoted with
// backslash escapes.
func keywordParams(s string) map[string]string {
	out := map[string]string{}
	for s = strings.TrimSpace(s); s != ""; s = strings.TrimSpace(s) {
		eq := strings.IndexByte(s, '=')
		if eq < 0 {
			return out
		}
		key := strings.TrimSpace(s[:eq])
		s = strings.TrimLeft(s[eq+1:], " \t")
		var val strings.Builder
		if strings.HasPrefix(s, "'") {
			i := 1
			for ; i < len(s) && s[i] != '\''; i++ {
				if s[i] == '\\' && i+1 < len(s) {
					i++
				}
				val.WriteByte(s[i])
			}
			s = s[min(i+1, len(s)):]
		} else {
			end := strings.IndexAny(s, " \t\n")
			if end < 0 {
				end = len(s)
			}
			val.WriteString(s[:end])
			s = s[end:]
		}
		out[key] = val.String()
	}
	return out
}
