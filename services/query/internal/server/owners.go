package server

import (
	"context"
	"fmt"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/metadata"
	"k8s.io/client-go/metadata/metadatainformer"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/cache"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
)

// owners knows the uid of every KollectInventory and KollectClusterInventory
// now, from a watch of their metadata: a history shows only the events of
// the inventory that exists under its name (answer.Reader.Revisions), never
// those of a deleted one whose name was reused. An inventory the watch does
// not know (yet) is asked for, so a new inventory's history shows at once.
// It needs get, list and watch on both kinds.
type owners struct {
	client              metadata.Interface
	factory             metadatainformer.SharedInformerFactory
	namespaced, cluster cache.GenericLister
	synced              atomic.Bool
}

func newOwners(cfg *rest.Config) (*owners, error) {
	c, err := metadata.NewForConfig(cfg)
	if err != nil {
		return nil, fmt.Errorf("build the inventories' metadata client: %w", err)
	}
	// Only names and uids are kept: not the managed fields or annotations.
	f := metadatainformer.NewSharedInformerFactoryWithOptions(c, 0, metadatainformer.WithTransform(func(o any) (any, error) {
		if m, ok := o.(*metav1.PartialObjectMetadata); ok {
			return &metav1.PartialObjectMetadata{TypeMeta: m.TypeMeta, ObjectMeta: metav1.ObjectMeta{
				Namespace: m.Namespace, Name: m.Name, UID: m.UID, ResourceVersion: m.ResourceVersion}}, nil
		}
		return o, nil
	}))
	gv := v1alpha1.GroupVersion
	return &owners{client: c, factory: f, namespaced: f.ForResource(gv.WithResource(inventoryResource.Resource)).Lister(),
		cluster: f.ForResource(gv.WithResource(clusterInventoryResource.Resource)).Lister()}, nil
}

// run watches the inventories until ctx ends; uid answers once both kinds
// were listed.
func (o *owners) run(ctx context.Context) {
	o.factory.Start(ctx.Done())
	for _, ok := range o.factory.WaitForCacheSync(ctx.Done()) {
		if !ok {
			return
		}
	}
	o.synced.Store(true)
}

// ready returns nil once the inventories were listed, 503 Service
// Unavailable before.
func (o *owners) ready() error {
	if !o.synced.Load() {
		return apierrors.NewServiceUnavailable("the query service has not yet listed the inventories " +
			"(it needs list and watch on kollectinventories and kollectclusterinventories): retry shortly")
	}
	return nil
}

// uid returns the uid of the inventory inv (a cluster inventory when inv
// has no namespace), empty when none exists.
func (o *owners) uid(ctx context.Context, inv busv1.NamespacedName) (string, error) {
	if err := o.ready(); err != nil {
		return "", err
	}
	var obj any
	var err error
	if inv.Namespace == "" {
		obj, err = o.cluster.Get(inv.Name)
	} else {
		obj, err = o.namespaced.ByNamespace(inv.Namespace).Get(inv.Name)
	}
	if apierrors.IsNotFound(err) { // deleted, or created since the watch last told
		obj, err = o.get(ctx, inv)
	}
	if apierrors.IsNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("look up the uid of %s: %w", inv, err)
	}
	m, ok := obj.(*metav1.PartialObjectMetadata)
	if !ok {
		return "", fmt.Errorf("look up the uid of %s: a %T in the cache", inv, obj)
	}
	return string(m.UID), nil
}

// get reads inv's metadata from the Kubernetes API.
func (o *owners) get(ctx context.Context, inv busv1.NamespacedName) (*metav1.PartialObjectMetadata, error) {
	gv := v1alpha1.GroupVersion
	if inv.Namespace == "" {
		return o.client.Resource(gv.WithResource(clusterInventoryResource.Resource)).Get(ctx, inv.Name, metav1.GetOptions{})
	}
	return o.client.Resource(gv.WithResource(inventoryResource.Resource)).Namespace(inv.Namespace).Get(ctx, inv.Name, metav1.GetOptions{})
}
