package azureblob

import (
	"fmt"
	"net/url"
	"strings"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
)

// storageSuffixes are the blob service domains of Azure's clouds (public,
// China, US Government): the only hosts, as <account>.<suffix> on port 443,
// to which a sink sends the exporter's workload identity token on its own.
var storageSuffixes = []string{publicSuffix, "blob.core.chinacloudapi.cn", "blob.core.usgovcloudapi.net"}

// identityHost checks that ep may receive the exporter's workload identity
// token, a bearer token of audience https://storage.azure.com that any
// storage account the identity may reach accepts: the endpoint must be an
// Azure storage host (host-style, port 443), or a host the operator lists
// (--ambient-credentials-hosts, for Azurite or a private endpoint of its own
// name). A tenant-chosen host, host-style ("acct.blob.attacker.example")
// or path-style, is refused before the identity is loaded.
func identityHost(ep endpoint, creds backend.Credentials) error {
	u, err := url.Parse(ep.serviceURL)
	if err != nil {
		return invalidEndpoint(ep.serviceURL, "not a URL")
	}
	if backend.AmbientHost(creds, u.Host) || (u.Port() == "" && backend.AmbientHost(creds, u.Hostname())) {
		return nil
	}
	host := strings.ToLower(u.Hostname())
	hostStyled := u.Path == "" && (u.Port() == "" || u.Port() == "443")
	for _, suffix := range storageSuffixes {
		if hostStyled && host == ep.account+"."+suffix {
			return nil
		}
	}
	return backend.Denied(v1alpha1.ReasonCredentialsDenied, fmt.Errorf("workload identity: endpoint host %s is not an Azure storage host "+
		"(<account>.%s): the identity's token goes only to Azure's storage hosts and to hosts the operator lists in --ambient-credentials-hosts; "+
		"set spec.secretRef to use another endpoint", u.Host, strings.Join(storageSuffixes, ", <account>.")))
}
