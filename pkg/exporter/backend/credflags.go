package backend

import (
	"flag"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// BindFlags registers --allow-cross-namespace-secret-refs,
// --ambient-credentials-namespaces and --ambient-credentials-hosts,
// defaulting to p's values.
func (p *CredentialPolicy) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&p.AllowCrossNamespaceSecretRefs, "allow-cross-namespace-secret-refs", p.AllowCrossNamespaceSecretRefs,
		"Let a sink's spec.secretRef name a Secret in another namespace than the sink's.")
	fs.Var((*NamespaceList)(&p.AmbientNamespaces), "ambient-credentials-namespaces",
		"Comma-separated namespaces whose sinks without spec.secretRef may use the exporter's own cloud identity "+
			"(AWS default credential chain, Google Application Default Credentials); * for every namespace; empty for none.")
	fs.Var((*HostList)(&p.AmbientHosts), "ambient-credentials-hosts",
		"Comma-separated hosts (host or host:port) besides Azure's storage hosts (*.blob.core.windows.net and the sovereign clouds') "+
			"to which an Azure sink may send the exporter's workload identity token: an Azurite emulator or a private endpoint; empty for none.")
}

// HostList is a flag.Value holding a comma-separated list of hosts, each
// host or host:port.
type HostList []string

// String returns the list joined by commas.
func (l *HostList) String() string { return strings.Join(*l, ",") }

// Set replaces the list with the comma-separated hosts of v; none may hold
// a scheme, a path or user information.
func (l *HostList) Set(v string) error {
	var out []string
	for _, h := range strings.Split(v, ",") {
		h = strings.TrimSpace(h)
		if h == "" {
			continue
		}
		if strings.ContainsAny(h, "/@?# ") {
			return fmt.Errorf("parse host list: %q is not a host or host:port", h)
		}
		out = append(out, h)
	}
	*l = out
	return nil
}

// NamespaceList is a flag.Value holding a comma-separated list of namespace
// names, or AllNamespaces.
type NamespaceList []string

// String returns the list joined by commas.
func (l *NamespaceList) String() string { return strings.Join(*l, ",") }

// Set replaces the list with the comma-separated names of v; each must be
// a namespace name or AllNamespaces.
func (l *NamespaceList) Set(v string) error {
	var out []string
	for _, n := range strings.Split(v, ",") {
		n = strings.TrimSpace(n)
		if n == "" {
			continue
		}
		if n != AllNamespaces && len(validation.IsDNS1123Label(n)) > 0 {
			return fmt.Errorf("parse namespace list: %q is not a namespace name or %s", n, AllNamespaces)
		}
		out = append(out, n)
	}
	*l = out
	return nil
}
