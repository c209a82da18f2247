package bus

import "regexp"

// userinfo matches the user information of a URL: the part between
// "scheme://" and "@" (user, password or token).
var userinfo = regexp.MustCompile(`([A-Za-z][A-Za-z0-9+.-]*://)[^@/\s"',]*@`)

// RedactURL returns s (one URL or a comma-separated list, as NATS server
// lists are written) with the user information of every URL replaced by
// "redacted", so that it can be logged or quoted in an error.
func RedactURL(s string) string {
	return userinfo.ReplaceAllString(s, "${1}redacted@")
}

// redactedError is err with every URL's user information removed from its
// message; it still unwraps to err.
type redactedError struct{ err error }

func (e redactedError) Error() string { return RedactURL(e.err.Error()) }
func (e redactedError) Unwrap() error { return e.err }
