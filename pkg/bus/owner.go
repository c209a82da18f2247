package bus

import (
	"slices"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ObjectOwner is who owns a content-addressed object of
// ObjectStoreEnvelopes: the inventories of one namespace, or one cluster
// inventory. Each aggregator shard writes and collects only the objects of
// the owners placed on it, so an owner never spans two shards, and the
// owner in a name does not depend on the shard count or on which replica
// holds the shard. The zero ObjectOwner is none: the names of objects
// written before the aggregator was sharded (chunk.<digest>, ...).
type ObjectOwner struct {
	// Namespace owns the objects of its namespaced inventories.
	Namespace string
	// ClusterInventory, when Namespace is empty, owns its own objects.
	ClusterInventory string
}

// OwnerOf returns the owner of inventory inv's objects: its namespace, or
// itself for a cluster inventory.
func OwnerOf(inv busv1.NamespacedName) ObjectOwner {
	if inv.Namespace != "" {
		return ObjectOwner{Namespace: inv.Namespace}
	}
	return ObjectOwner{ClusterInventory: inv.Name}
}

// IsZero reports whether o is no owner.
func (o ObjectOwner) IsZero() bool { return o == ObjectOwner{} }

// Key is the string an owner is placed by: the namespace, or the cluster
// inventory's name.
func (o ObjectOwner) Key() string {
	if o.Namespace != "" {
		return o.Namespace
	}
	return o.ClusterInventory
}

// prefix is the owner's part of an object name: "<namespace>." or
// "=cluster.<clusterInventory>.", tokens encoded; empty for no owner.
func (o ObjectOwner) prefix() string {
	switch {
	case o.Namespace != "":
		return EncodeToken(o.Namespace) + "."
	case o.ClusterInventory != "":
		return EmptyToken + "." + EncodeToken(o.ClusterInventory) + "."
	}
	return ""
}

// Names returns name (ChunkObjectName, ManifestObjectName, ...) with the
// owner between the kind and the digest: chunk.<namespace>.<digest>,
// chunk.=cluster.<clusterInventory>.<digest>. For no owner it returns
// name itself.
func (o ObjectOwner) Names(name func(digest string) string) func(digest string) string {
	p := o.prefix()
	if p == "" {
		return name
	}
	return func(digest string) string {
		n := name(digest)
		return n[:len(n)-len(digest)] + p + digest
	}
}

// ParseObjectOwner returns the owner of a content-addressed object name;
// false for names without one (written before the aggregator was sharded,
// and the per-revision envelope objects of earlier releases).
func ParseObjectOwner(name string) (ObjectOwner, bool) {
	v := strings.Split(name, ".")
	known := slices.Contains([]string{chunkPrefix, manifestPrefix, pagePrefix, deltaPrefix, envelopePrefix}, v[0]+".")
	if len(v) < 3 || len(v) > 4 || !known || !isDigest(v[len(v)-1]) {
		return ObjectOwner{}, false
	}
	if len(v) == 3 {
		ns, err := DecodeToken(v[1])
		if err != nil || ns == "" {
			return ObjectOwner{}, false
		}
		return ObjectOwner{Namespace: ns}, true
	}
	if v[1] != EmptyToken {
		return ObjectOwner{}, false
	}
	inv, err := DecodeToken(v[2])
	if err != nil || inv == "" {
		return ObjectOwner{}, false
	}
	return ObjectOwner{ClusterInventory: inv}, true
}

// ChunkObjectNameIn returns the name of the chunk with digest that the
// manifest named manifest lists: a manifest's chunks have its owner
// (ChunkObjectName for a manifest without one).
func ChunkObjectNameIn(manifest, digest string) string {
	o, _ := ParseObjectOwner(manifest)
	return o.Names(ChunkObjectName)(digest)
}

// PageObjectNameIn returns the name of the page with digest of the paged
// manifest named manifest: a manifest's pages have its owner, like its
// chunks (PageObjectName for a manifest without one).
func PageObjectNameIn(manifest, digest string) string {
	o, _ := ParseObjectOwner(manifest)
	return o.Names(PageObjectName)(digest)
}

// isDigest reports whether s is a sha256 hex digest.
func isDigest(s string) bool {
	if len(s) != 64 {
		return false
	}
	for i := range len(s) {
		if c := s[i]; (c < '0' || c > '9') && (c < 'a' || c > 'f') {
			return false
		}
	}
	return true
}
