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
	if common == nil || common.SecretRef == nil || allowCross {
		return ""
	}
	if other := common.SecretRef.Namespace; other != "" && other != ns {
		return fmt.Sprintf("spec.secretRef.namespace: a sink may reference Secrets of its own namespace %s only, not %s "+
			"(the operator has not allowed cross-namespace Secret references)", ns, other)
	}
	return ""
}
