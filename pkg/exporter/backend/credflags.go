package backend

import (
	"flag"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/util/validation"
)

// BindFlags registers --allow-cross-namespace-secret-refs and
// --ambient-credentials-namespaces, defaulting to p's values.
func (p *CredentialPolicy) BindFlags(fs *flag.FlagSet) {
	fs.BoolVar(&p.AllowCrossNamespaceSecretRefs, "allow-cross-namespace-secret-refs", p.AllowCrossNamespaceSecretRefs,
		"Let a sink's spec.secretRef name a Secret in another namespace than the sink's.")
	fs.Var((*NamespaceList)(&p.AmbientNamespaces), "ambient-credentials-namespaces",
		"Comma-separated namespaces whose sinks without spec.secretRef may use the exporter's own cloud identity "+
			"(AWS default credential chain, Google Application Default Credentials); * for every namespace; empty for none.")
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
