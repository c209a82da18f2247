package validate

import (
	"k8s.io/apimachinery/pkg/runtime/schema"

	"kollect.dev/kollect/api/v1alpha1"
)

func gvkOf(p *v1alpha1.KollectProfile) schema.GroupVersionKind {
	g := p.Spec.TargetGVK
	return schema.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
}
