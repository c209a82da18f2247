package policy

import (
	"fmt"

	"kollect.dev/kollect/api/v1alpha1"
)

// SecretRefViolation returns why a sink of namespace ns may not use its
// spec.secretRef, or "" when it may: the Secret must be in the sink's own
// namespace unless allowCross (the operator's
// --allow-cross-namespace-secret-refs). tls.caSecretRef has no namespace
// field and is always read from the sink's namespace.
func SecretRefViolation(ns string, common *v1alpha1.SinkCommon, allowCross bool) string {
	return SecretRefsViolation(ns, common.SecretNamespaces(), allowCross)
}

// SecretRefsViolation applies the rule of SecretRefViolation to every
// Secret reference of a sink that names a namespace (the sink's
// SecretNamespaces: secretRef, bigquery.secretRef, databaseRef), and names
// the first refused one.
func SecretRefsViolation(ns string, refs []v1alpha1.SecretNamespace, allowCross bool) string {
	if allowCross {
		return ""
	}
	for _, r := range refs {
		if r.Namespace != ns {
			return fmt.Sprintf("%s: a sink may reference Secrets of its own namespace %s only, not %s "+
				"(the operator has not allowed cross-namespace Secret references: --allow-cross-namespace-secret-refs)", r.Field, ns, r.Namespace)
		}
	}
	return ""
}
