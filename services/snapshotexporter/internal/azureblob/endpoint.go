package azureblob

import (
	"fmt"
	"net/url"
	"regexp"
	"strings"

	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/sink"
)

// publicSuffix is the blob service domain of Azure's public cloud, which
// azblob:// endpoints name.
const publicSuffix = "blob.core.windows.net"

// Azure's naming rules: an account is 3–24 lowercase letters and digits; a
// container 3–63 lowercase letters, digits and single hyphens, starting and
// ending with a letter or digit.
var (
	accountName   = regexp.MustCompile(`^[a-z0-9]{3,24}$`)
	containerName = regexp.MustCompile(`^[a-z0-9](?:[a-z0-9]|-[a-z0-9]){2,62}$`)
)

// endpoint is a parsed spec.endpoint of an azureblob sink.
type endpoint struct {
	// serviceURL is the account's blob service: https://<account>.blob.<suffix>
	// or, path-style, http(s)://host[:port]/<account>.
	serviceURL string
	account    string
	container  string
	prefix     string
}

// containerURL is the URL of the container, without a query.
func (e endpoint) containerURL() string { return e.serviceURL + "/" + e.container }

// parseEndpoint parses the three forms of an azureblob endpoint:
// azblob://account/container[/prefix] (Azure's public cloud),
// https://account.blob.<suffix>/container[/prefix] (any Azure cloud: the
// host names the account) and http(s)://host[:port]/account/container[/prefix]
// (path-style, for an emulator such as Azurite). An invalid endpoint is a
// permanent error naming it.
func parseEndpoint(raw string) (endpoint, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return endpoint{}, invalidEndpoint(raw, "not a URL")
	}
	switch {
	case u.User != nil:
		return endpoint{}, invalidEndpoint(raw, "it must not carry credentials; put them in the Secret named by secretRef")
	case u.RawQuery != "" || u.Fragment != "":
		return endpoint{}, invalidEndpoint(raw, "it takes no query or fragment (a SAS token goes in the Secret key "+KeySASToken+")")
	case u.Host == "":
		return endpoint{}, invalidEndpoint(raw, "no host")
	}
	segments := strings.Split(strings.Trim(u.Path, "/"), "/")
	var e endpoint
	switch {
	case u.Scheme == "azblob":
		e.account = u.Host
		e.serviceURL = "https://" + e.account + "." + publicSuffix
	case u.Scheme != "http" && u.Scheme != "https":
		return endpoint{}, invalidEndpoint(raw, "want azblob://account/container[/prefix], https://account.blob.<suffix>/container[/prefix] "+
			"or http(s)://host/account/container[/prefix]")
	case hostStyle(u.Hostname()):
		e.account, _, _ = strings.Cut(u.Hostname(), ".")
		e.serviceURL = u.Scheme + "://" + u.Host
	default:
		e.account, segments = segments[0], segments[1:]
		e.serviceURL = u.Scheme + "://" + u.Host + "/" + e.account
	}
	if len(segments) == 0 || segments[0] == "" {
		return endpoint{}, invalidEndpoint(raw, "no container")
	}
	e.container, e.prefix = segments[0], strings.Join(segments[1:], "/")
	if !accountName.MatchString(e.account) {
		return endpoint{}, invalidEndpoint(raw, fmt.Sprintf("account %q is not 3-24 lowercase letters and digits", e.account))
	}
	if !containerName.MatchString(e.container) {
		return endpoint{}, invalidEndpoint(raw, fmt.Sprintf("container %q is not 3-63 lowercase letters, digits and single hyphens", e.container))
	}
	return e, nil
}

// hostStyle reports whether host names the account in its first label, as
// Azure's blob service hosts do (<account>.blob.core.windows.net,
// <account>.blob.core.chinacloudapi.cn, ...).
func hostStyle(host string) bool {
	_, rest, ok := strings.Cut(host, ".")
	return ok && strings.HasPrefix(rest, "blob.")
}

// invalidEndpoint names raw without its user information and its query (a
// SAS token pasted into the endpoint).
func invalidEndpoint(raw, why string) error {
	shown, query, _ := strings.Cut(raw, "?")
	if query != "" {
		shown += "?redacted"
	}
	return sink.Permanent(fmt.Errorf("invalid sink spec: endpoint %q: %s", bus.RedactURL(shown), why))
}
