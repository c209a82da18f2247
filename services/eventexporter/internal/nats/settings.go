package nats

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

// settings is the validated nats part of a sink spec.
type settings struct {
	url     string // comma-separated server URLs
	subject string
	stream  string // "" when any stream capturing subject is used
	ensure  bool   // provisioning mode ensure
}

var (
	subjectPattern = regexp.MustCompile(`^[^\s*>]{1,255}$`)
	streamPattern  = regexp.MustCompile(`^[A-Za-z0-9_-]{1,255}$`)
)

// settingsOf validates spec as the CRD schema does, so that a spec that
// reached the exporter some other way fails with a message naming the field.
func settingsOf(spec v1alpha1.KollectEventSinkSpec) (settings, error) {
	n := spec.NATS // Validate: set, and exactly one of url and endpoint
	set := settings{url: n.URL, subject: n.Subject, stream: n.Stream, ensure: true}
	field := "spec.nats.url"
	if spec.Endpoint != "" {
		set.url, field = spec.Endpoint, "spec.endpoint"
	}
	for _, s := range strings.Split(set.url, ",") {
		u, err := url.Parse(strings.TrimSpace(s))
		if err != nil || u.Host == "" || !validScheme(u.Scheme) {
			return settings{}, fmt.Errorf("%s: %q is not a nats://, tls://, ws:// or wss:// URL", field, bus.RedactURL(s))
		}
		if u.User != nil {
			return settings{}, fmt.Errorf("%s must not carry credentials; put them in the Secret named by secretRef", field)
		}
	}
	if !subjectPattern.MatchString(n.Subject) || strings.Contains(n.Subject, "..") ||
		strings.HasPrefix(n.Subject, ".") || strings.HasSuffix(n.Subject, ".") {
		return settings{}, fmt.Errorf("spec.nats.subject %q must be a subject without wildcards, spaces or empty tokens", n.Subject)
	}
	if n.Stream != "" && !streamPattern.MatchString(n.Stream) {
		return settings{}, fmt.Errorf("spec.nats.stream %q must be 1-255 of A-Z a-z 0-9 _ -", n.Stream)
	}
	if p := spec.Provisioning; p != nil && p.Mode == v1alpha1.ProvisionExisting {
		set.ensure = false
	}
	return set, nil
}

func validScheme(s string) bool {
	switch s {
	case "nats", "tls", "ws", "wss":
		return true
	}
	return false
}

// captures reports whether the stream subject filter captures subject
// ("*" matches one token, a trailing ">" one or more).
func captures(filter, subject string) bool {
	f, s := strings.Split(filter, "."), strings.Split(subject, ".")
	for i, tok := range f {
		switch {
		case tok == ">":
			return len(s) > i
		case i >= len(s):
			return false
		case tok != "*" && tok != s[i]:
			return false
		}
	}
	return len(f) == len(s)
}
