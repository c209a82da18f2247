package engine

import (
	"context"

	"k8s.io/apimachinery/pkg/runtime/schema"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/selection"
	"kollect.dev/kollect/services/collector/internal/informers"
	"kollect.dev/kollect/services/collector/internal/rowstore"
)

// The engine's peers, declared here as it uses them: *informers.Manager and
// *rowstore.Store in the collector, small in-memory ones in this package's
// unit tests.
var (
	_ Informers = (*informers.Manager)(nil)
	_ Rows      = (*rowstore.Store)(nil)
)

// Informers is what the engine needs of the informer manager.
type Informers interface {
	ObjectCache
	Watches
	NamespaceCache
}

// ObjectCache holds the watched objects, one store per GVK.
type ObjectCache interface {
	// Store returns the cache of gvk, whether it holds a full list, and
	// whether an informer runs for gvk at all.
	Store(gvk schema.GroupVersionKind) (store informers.Cache, synced, ok bool)
	// Stores returns the cache of every running informer.
	Stores() map[schema.GroupVersionKind]informers.Cache
	// Namespaced reports whether gvk is namespaced; known is false while no
	// informer runs for it.
	Namespaced(gvk schema.GroupVersionKind) (namespaced, known bool)
}

// Watches starts, changes and releases the informer of a GVK.
type Watches interface {
	// Set declares what the Targets of gvk need.
	Set(gvk schema.GroupVersionKind, req informers.Requirement)
	// Remove releases the informer of gvk.
	Remove(gvk schema.GroupVersionKind)
	// State returns why gvk cannot be watched, if it cannot.
	State(gvk schema.GroupVersionKind) informers.State
}

// NamespaceCache holds the cluster's Namespaces, which selection reads.
type NamespaceCache interface {
	// WaitForNamespaces blocks until the Namespaces are listed; false when
	// ctx ends first.
	WaitForNamespaces(ctx context.Context) bool
	// Namespace returns one Namespace; ok is false when it does not exist.
	Namespace(name string) (ns selection.Namespace, ok bool)
	// Namespaces returns every Namespace.
	Namespaces() []selection.Namespace
}

// Rows is what the engine needs of the rows bucket.
type Rows interface {
	RowWriter
	RowReader
	RowHolder
	// OnFailure registers f for puts that fail once sent.
	OnFailure(f func(rowstore.Failure))
}

// RowHolder holds the rows of the Targets of the shards the engine works
// on, and only those.
type RowHolder interface {
	// Load reads what the bucket holds of targets' rows, before the
	// engine writes any of them.
	Load(ctx context.Context, targets []busv1.NamespacedName) error
	// Forget drops targets' rows once the engine stopped writing them.
	Forget(targets []busv1.NamespacedName)
	// Flush waits until no write is awaiting its ack.
	Flush(ctx context.Context) error
}

// RowWriter writes rows; each call reports whether it sent anything (a row
// already held unchanged, or a delete of an absent row, sends nothing).
type RowWriter interface {
	Put(ctx context.Context, row busv1.Row, targetGeneration int64, attributeTypes []byte) (bool, error)
	Delete(ctx context.Context, key busv1.RowKey) (bool, error)
}

// RowReader reads which rows the bucket holds.
type RowReader interface {
	// Keys returns the keys of a Target's rows.
	Keys(targetNamespace, targetName string) []busv1.RowKey
	// Count returns the number of a Target's rows.
	Count(targetNamespace, targetName string) int
	// Targets returns every Target that has rows.
	Targets() []busv1.NamespacedName
}
