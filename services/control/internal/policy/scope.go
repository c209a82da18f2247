package policy

import (
	"fmt"
	"slices"
	"time"

	"kollect.dev/kollect/api/v1alpha1"
)

// AllowsGVK reports whether rules allow a Profile to target gvk.
func AllowsGVK(rules *v1alpha1.ScopeRules, gvk v1alpha1.GroupVersionKind) bool {
	if rules == nil || rules.AllowedGVKs == nil {
		return true
	}
	return slices.ContainsFunc(rules.AllowedGVKs, func(a v1alpha1.AllowedGVK) bool {
		return a.Group == gvk.Group && a.Kind == gvk.Kind && (a.Version == "" || a.Version == gvk.Version)
	})
}

// AllowsNamespace reports whether rules let a target collect from ns.
func AllowsNamespace(rules *v1alpha1.ScopeRules, ns string) bool {
	if rules == nil {
		return true
	}
	if slices.Contains(rules.DeniedNamespaces, ns) {
		return false
	}
	return rules.AllowedNamespaces == nil || slices.Contains(rules.AllowedNamespaces, ns)
}

// AllowsSink reports whether rules let an inventory bind the sink name of a
// family, given the family's allow list.
func AllowsSink(allow []string, name string) bool {
	return allow == nil || slices.Contains(allow, name)
}

// Floor returns the Scope's minExportInterval, zero when unset.
func Floor(rules *v1alpha1.ScopeRules) time.Duration {
	if rules == nil || rules.MinExportInterval == nil {
		return 0
	}
	return rules.MinExportInterval.Duration
}

// NamespaceViolation returns a message naming the first namespace the
// target's explicit includedNamespaces reach that rules forbid, or "".
func NamespaceViolation(rules *v1alpha1.ScopeRules, included []string) string {
	for _, ns := range included {
		if !AllowsNamespace(rules, ns) {
			return fmt.Sprintf("spec.includedNamespaces: namespace %s is not allowed by the Scope", ns)
		}
	}
	return ""
}
