package reconcile

import (
	"context"
	"fmt"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control/internal/access"
)

// Field indexes, so a Profile, sink or binding change finds the objects
// depending on it.
const (
	// indexProfile is "<namespace>/<name>" of the Profile a target names.
	indexProfile = "kollect.dev/profile"
	// indexSink is "<family>/<namespace>/<name>" of each sink an inventory
	// binds.
	indexSink = "kollect.dev/sink"
)

func indexes(ctx context.Context, mgr manager.Manager, d *Deps) error {
	fi := mgr.GetFieldIndexer()
	add := func(obj client.Object, name string, f client.IndexerFunc) error {
		if err := fi.IndexField(ctx, obj, name, f); err != nil {
			return fmt.Errorf("index %T by %s: %w", obj, name, err)
		}
		return nil
	}
	if err := add(&v1alpha1.KollectTarget{}, indexProfile, func(o client.Object) []string {
		t := o.(*v1alpha1.KollectTarget)
		return []string{t.Namespace + "/" + t.Spec.ProfileRef.Name}
	}); err != nil {
		return err
	}
	if err := access.IndexFields(ctx, fi); err != nil {
		return err
	}
	if err := add(&v1alpha1.KollectTarget{}, indexSubject, func(o client.Object) []string {
		return d.targetSubjects(o.(*v1alpha1.KollectTarget))
	}); err != nil {
		return err
	}
	if err := add(&v1alpha1.KollectClusterTarget{}, indexProfile, func(o client.Object) []string {
		t := o.(*v1alpha1.KollectClusterTarget)
		return []string{t.Spec.ProfileRef.Namespace + "/" + t.Spec.ProfileRef.Name}
	}); err != nil {
		return err
	}
	if err := add(&v1alpha1.KollectInventory{}, indexSink, func(o client.Object) []string {
		return sinkKeys(inventoryWants(o.(*v1alpha1.KollectInventory)))
	}); err != nil {
		return err
	}
	return add(&v1alpha1.KollectClusterInventory{}, indexSink, func(o client.Object) []string {
		return sinkKeys(clusterWants(o.(*v1alpha1.KollectClusterInventory)))
	})
}

func sinkKeys(ws []wanted) []string {
	out := make([]string, 0, len(ws))
	for _, w := range ws {
		out = append(out, string(w.sink.Family)+"/"+w.sink.Namespace+"/"+w.sink.Name)
	}
	return out
}

func forEach(l client.ObjectList, f func(client.Object)) {
	_ = meta.EachListItem(l, func(o runtime.Object) error {
		if c, ok := o.(client.Object); ok {
			f(c)
		}
		return nil
	})
}
