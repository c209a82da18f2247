package reconcile

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// sinkView is what control needs of a sink of any family.
type sinkView struct {
	obj    client.Object
	family busv1.Family
	typ    string
	common *v1alpha1.SinkCommon
	// secretRefs are the namespaced Secret references, by the field they
	// are written in (before normalisation).
	secretRefs []v1alpha1.SecretNamespace
	// endpoints are every address the spec names (its Endpoints), for the
	// endpoint policy.
	endpoints []string
	// invalid is the spec's Validate result: the checks admission and
	// the exporter run too.
	invalid field.ErrorList
	spec    any
}

// newSink returns an empty sink object of family f.
func newSink(f busv1.Family) client.Object {
	switch f {
	case busv1.FamilySnapshot:
		return &v1alpha1.KollectSnapshotSink{}
	case busv1.FamilyDatabase:
		return &v1alpha1.KollectDatabaseSink{}
	case busv1.FamilyEvent:
		return &v1alpha1.KollectEventSink{}
	}
	return nil
}

// viewOf returns the family-independent view of a sink object.
// The view's spec is the normalised one (the canonical spellings); obj is
// left as read, for its status.
func viewOf(obj client.Object) sinkView {
	switch o := obj.(type) {
	case *v1alpha1.KollectSnapshotSink:
		n := o.DeepCopy()
		n.Normalize()
		return sinkView{obj: o, family: busv1.FamilySnapshot, typ: string(n.Spec.Type), common: &n.Spec.SinkCommon,
			secretRefs: o.Spec.SecretNamespaces(), endpoints: o.Spec.Endpoints(), invalid: n.Spec.Validate(), spec: n.Spec}
	case *v1alpha1.KollectDatabaseSink:
		n := o.DeepCopy()
		n.Normalize()
		return sinkView{obj: o, family: busv1.FamilyDatabase, typ: string(n.Spec.Type), common: &n.Spec.SinkCommon,
			secretRefs: o.Spec.SecretNamespaces(), endpoints: o.Spec.Endpoints(), invalid: n.Spec.Validate(), spec: n.Spec}
	case *v1alpha1.KollectEventSink:
		return sinkView{obj: o, family: busv1.FamilyEvent, typ: string(o.Spec.Type), common: &o.Spec.SinkCommon,
			secretRefs: o.Spec.SecretNamespaces(), endpoints: o.Spec.Endpoints(), invalid: o.Spec.Validate(), spec: o.Spec}
	}
	panic(fmt.Sprintf("viewOf: %T is not a sink", obj))
}

// specViolation returns the message of the spec's Validate errors (reason
// InvalidSpec), or "" for a valid spec: the webhook refuses such a sink, so
// only one admitted before a rule existed (or with the webhook off) gets here.
func (v sinkView) specViolation() string {
	if len(v.invalid) == 0 {
		return ""
	}
	return v.invalid.ToAggregate().Error()
}

// getSink reads a sink of family f.
func (d *Deps) getSink(ctx context.Context, f busv1.Family, ns, name string) (sinkView, error) {
	obj := newSink(f)
	if err := d.Client.Get(ctx, types.NamespacedName{Namespace: ns, Name: name}, obj); err != nil {
		return sinkView{}, err
	}
	return viewOf(obj), nil
}

// sinkAllowList returns the Scope's allow list for family f.
func sinkAllowList(rules *v1alpha1.ScopeRules, f busv1.Family) []string {
	lists := rules.SinkAllowLists()
	switch f {
	case busv1.FamilySnapshot:
		return lists.Snapshot
	case busv1.FamilyDatabase:
		return lists.Database
	}
	return lists.Event
}
