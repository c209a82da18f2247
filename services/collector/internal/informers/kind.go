package informers

import (
	"slices"

	"k8s.io/client-go/tools/cache"
)

// Cache is what the engine reads of a GVK's objects: the cache of one
// informer, or of one informer per namespace.
type Cache interface {
	GetByKey(key string) (item any, exists bool, err error)
	List() []any
	ByIndex(indexName, indexedValue string) ([]any, error)
	ListIndexFuncValues(indexName string) []string
}

// MaxNamespaceInformers is the most namespaces a GVK is watched in one by
// one; Targets reaching more are served by one informer of every namespace.
const MaxNamespaceInformers = 128

// kindInformers are the running informers of one GVK: one of every
// namespace (parts[""]), or one per namespace its Targets name, so that a
// replica whose Targets name a few namespaces caches only their objects.
// Parts are added and removed as those namespaces change; a change the
// running parts do not cover (fields, selectors) restarts them all.
type kindInformers struct {
	base  informerSpec // namespace ""
	req   Requirement  // what every part holds
	parts map[string]*instance
	view  Cache // over parts, rebuilt when they change
}

// partNamespaces are the namespaces req asks for a kind: "" alone for
// every namespace.
func partNamespaces(spec informerSpec, req Requirement) []string {
	if !spec.namespaced || len(req.Namespaces) == 0 || len(req.Namespaces) > MaxNamespaceInformers {
		return []string{""}
	}
	return req.Namespaces
}

// synced reports whether every part holds a full list.
func (k *kindInformers) synced() bool {
	for _, p := range k.parts {
		if !p.inf.HasSynced() {
			return false
		}
	}
	return true
}

// rebuild makes the view over the current parts.
func (k *kindInformers) rebuild() {
	if p, ok := k.parts[""]; ok && len(k.parts) == 1 {
		k.view = p.inf.GetIndexer()
		return
	}
	v := make(namespaceCaches, len(k.parts))
	for ns, p := range k.parts {
		v[ns] = p.inf.GetIndexer()
	}
	k.view = v
}

// namespaceCaches is the Cache of a kind watched namespace by namespace:
// each key, namespace and index lookup goes to its namespace's cache.
type namespaceCaches map[string]cache.Indexer

func (n namespaceCaches) GetByKey(key string) (any, bool, error) {
	ns, _, err := cache.SplitMetaNamespaceKey(key)
	if err != nil {
		return nil, false, err
	}
	c, ok := n[ns]
	if !ok {
		return nil, false, nil
	}
	return c.GetByKey(key)
}

func (n namespaceCaches) List() []any {
	var out []any
	for _, c := range n {
		out = append(out, c.List()...)
	}
	return out
}

func (n namespaceCaches) ByIndex(indexName, value string) ([]any, error) {
	if indexName == cache.NamespaceIndex {
		c, ok := n[value]
		if !ok {
			return nil, nil
		}
		return c.ByIndex(indexName, value)
	}
	var out []any
	for _, c := range n {
		objs, err := c.ByIndex(indexName, value)
		if err != nil {
			return nil, err
		}
		out = append(out, objs...)
	}
	return out, nil
}

func (n namespaceCaches) ListIndexFuncValues(indexName string) []string {
	var out []string
	for _, c := range n {
		out = append(out, c.ListIndexFuncValues(indexName)...)
	}
	slices.Sort(out)
	return slices.Compact(out)
}
