package reconcile

import (
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/bus"
)

type (
	ctrlObject = client.Object
	configRef  = bus.ConfigRef
)

func schemaGVK(g v1alpha1.GroupVersionKind) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: g.Group, Version: g.Version, Kind: g.Kind}
}

func ctrlKey(ns, name string) client.ObjectKey { return client.ObjectKey{Namespace: ns, Name: name} }

type runtimeObject = runtime.Object
