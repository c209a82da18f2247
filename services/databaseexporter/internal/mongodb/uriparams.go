package mongodb

import (
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/pkg/sink"
)

// fileOptions are URI options that make the driver read a file of the
// exporter's while it applies the URI; TLS material comes from spec.tls.
var fileOptions = []string{"tlscafile", "tlscertificatekeyfile", "tlscertificatekeyfilepassword",
	"sslcertificateauthorityfile", "sslclientcertificatekeyfile", "sslclientcertificatekeypassword"}

// ambientMechanisms authenticate as the exporter's own identity (its AWS
// role, Kerberos keytab or cloud workload identity), never a tenant's.
var ambientMechanisms = []string{"mongodb-aws", "gssapi", "mongodb-oidc"}

// refuseLocalOptions returns a permanent error naming the first URI option
// of uri that reads a local file or borrows the exporter's identity, before
// the driver applies it (which reads the files at once).
func refuseLocalOptions(uri, where string) error {
	u, err := url.Parse(uri)
	if err != nil {
		return nil //nolint:nilerr // the driver reports it without quoting the string
	}
	for k, v := range u.Query() {
		key := strings.ToLower(k)
		for _, f := range fileOptions {
			if key == f {
				return sink.Permanent(fmt.Errorf("%s sets %s, which makes the exporter read a local file; give TLS material with spec.tls", where, k))
			}
		}
		if key != "authmechanism" || len(v) == 0 {
			continue
		}
		for _, m := range ambientMechanisms {
			if strings.EqualFold(v[len(v)-1], m) {
				return sink.Permanent(fmt.Errorf("%s sets authMechanism %s, which authenticates as the exporter's own identity; use a user and password from the Secret", where, v[len(v)-1]))
			}
		}
	}
	return nil
}
