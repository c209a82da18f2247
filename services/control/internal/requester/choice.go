package requester

import (
	"slices"

	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
)

// Choice is the identity an object chooses: the ServiceAccount a Target
// names and the Secrets a sink reads. A Choice that is empty needs no
// requester.
type Choice struct {
	// ServiceAccount is the ServiceAccount, of the object's namespace, the
	// Target names; "" when it names none or names the operator's default.
	ServiceAccount string
	// Secrets are the Secrets the sink's references name, sorted.
	Secrets []types.NamespacedName
}

// Empty reports whether the choice needs no requester.
func (c Choice) Empty() bool { return c.ServiceAccount == "" && len(c.Secrets) == 0 }

// Of returns what obj chooses and what its seal is bound to; ok is false
// for a kind that chooses no identity. defaultSA is the operator's default
// ServiceAccount: naming it chooses nothing.
func Of(obj client.Object, defaultSA string) (c Choice, o Object, ok bool) {
	ns := obj.GetNamespace()
	o = Object{Namespace: ns, Name: obj.GetName()}
	switch t := obj.(type) {
	case *v1alpha1.KollectTarget:
		o.Kind, o.Spec = "KollectTarget", t.Spec
		if sa := t.Spec.ServiceAccountName; sa != "" && sa != defaultSA {
			c.ServiceAccount = sa
		}
	case *v1alpha1.KollectSnapshotSink:
		o.Kind, o.Spec = "KollectSnapshotSink", t.Spec
		c.Secrets = secrets(ns, &t.Spec.SinkCommon)
	case *v1alpha1.KollectEventSink:
		o.Kind, o.Spec = "KollectEventSink", t.Spec
		c.Secrets = secrets(ns, &t.Spec.SinkCommon)
	case *v1alpha1.KollectDatabaseSink:
		o.Kind, o.Spec = "KollectDatabaseSink", t.Spec
		c.Secrets = secrets(ns, &t.Spec.SinkCommon)
		add := func(name, refNS string) { c.Secrets = appendSecret(c.Secrets, ns, name, refNS) }
		if p := t.Spec.Postgres; p != nil && p.DatabaseRef != nil {
			add(p.DatabaseRef.Name, p.DatabaseRef.Namespace)
		}
		if m := t.Spec.MongoDB; m != nil && m.DatabaseRef != nil {
			add(m.DatabaseRef.Name, m.DatabaseRef.Namespace)
		}
		if b := t.Spec.BigQuery; b != nil && b.SecretRef != nil {
			add(b.SecretRef.Name, b.SecretRef.Namespace)
		}
	default:
		return c, o, false
	}
	slices.SortFunc(c.Secrets, func(a, b types.NamespacedName) int {
		if a.Namespace != b.Namespace {
			return compare(a.Namespace, b.Namespace)
		}
		return compare(a.Name, b.Name)
	})
	c.Secrets = slices.Compact(c.Secrets)
	return c, o, true
}

func secrets(ns string, c *v1alpha1.SinkCommon) []types.NamespacedName {
	var out []types.NamespacedName
	if c.SecretRef != nil {
		out = appendSecret(out, ns, c.SecretRef.Name, c.SecretRef.Namespace)
	}
	if c.TLS != nil && c.TLS.CASecretRef != nil {
		out = appendSecret(out, ns, c.TLS.CASecretRef.Name, "")
	}
	return out
}

func appendSecret(out []types.NamespacedName, ns, name, refNS string) []types.NamespacedName {
	if name == "" {
		return out
	}
	if refNS == "" {
		refNS = ns
	}
	return append(out, types.NamespacedName{Namespace: refNS, Name: name})
}

func compare(a, b string) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// Reach lists where a Target reaches beyond its own namespace: "" (every
// namespace) when it selects by label or has no namespace filter, else
// each named namespace other than its own. The webhook and control review
// the requester's list right there.
func Reach(t *v1alpha1.KollectTarget) []string {
	if t.Spec.NamespaceSelector != nil || len(t.Spec.IncludedNamespaces) == 0 {
		return []string{""}
	}
	var out []string
	for _, ns := range t.Spec.IncludedNamespaces {
		if ns != t.Namespace && !slices.Contains(out, ns) {
			out = append(out, ns)
		}
	}
	return out
}
