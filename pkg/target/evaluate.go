package target

import (
	"fmt"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/selection"
)

// Key returns the row key of the object with uid under this Target.
func (c *Compiled) Key(uid string) busv1.RowKey {
	return busv1.RowKey{TargetNamespace: c.Config.Namespace, TargetName: c.Config.Name, UID: uid,
		ClusterTarget: c.Config.Kind == busv1.KindClusterTarget}
}

// Evaluate decides whether obj is collected and builds its row. ns is the
// object's namespace, nil for cluster-scoped objects. It returns a nil row
// when the object is not selected; err is a selection or extraction failure,
// for which the object has no row either.
func (c *Compiled) Evaluate(obj *unstructured.Unstructured, ns *selection.Namespace) (*busv1.Row, error) {
	if ns != nil && !c.Namespace(*ns) {
		return nil, nil
	}
	if ns == nil && !c.Config.Access.AllowsNamespace("") {
		return nil, nil // a cluster-scoped kind needs cluster-wide access
	}
	ok, err := c.selector.Object(selection.Object{Name: obj.GetName(), Labels: obj.GetLabels(), Content: obj.Object}, ns)
	if err != nil {
		return nil, fmt.Errorf("%s: matchPolicy: %w", objectRef(obj), err)
	}
	if !ok {
		return nil, nil
	}
	attrs, err := c.extractor.Extract(obj.Object)
	if err != nil {
		return nil, fmt.Errorf("%s: %w", objectRef(obj), err)
	}
	return &busv1.Row{
		TargetNamespace: c.Config.Namespace, TargetName: c.Config.Name,
		Namespace: obj.GetNamespace(), Name: obj.GetName(), UID: string(obj.GetUID()),
		Group: c.GVK.Group, Version: c.GVK.Version, Kind: c.GVK.Kind,
		Attributes: attrs,
	}, nil
}

func objectRef(obj *unstructured.Unstructured) string {
	if ns := obj.GetNamespace(); ns != "" {
		return ns + "/" + obj.GetName()
	}
	return obj.GetName()
}
