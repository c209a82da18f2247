package index

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"maps"
	"math/bits"
	"slices"
)

// shard is one source namespace of a cluster inventory: its item count and
// an order-independent digest of its rows (the sum of their sha256 modulo
// 2^256), updated in O(1) per change.
type shard struct {
	count int
	sum   [4]uint64 // little-endian limbs
}

// Shard is one source namespace's item count and digest.
type Shard struct {
	Namespace string
	ItemCount int
	Checksum  string
}

func (v *View) shardOf(ns string) *shard {
	s := v.shards[ns]
	if s == nil {
		s = &shard{}
		v.shards[ns] = s
	}
	return s
}

func (s *shard) add(r *Row) {
	s.count++
	sum := sha256.Sum256(r.Raw)
	var carry uint64
	for i := range 4 {
		x := binary.BigEndian.Uint64(sum[24-8*i:])
		s.sum[i], carry = bits.Add64(s.sum[i], x, carry)
	}
}

func (s *shard) remove(r *Row) {
	s.count--
	sum := sha256.Sum256(r.Raw)
	var borrow uint64
	for i := range 4 {
		x := binary.BigEndian.Uint64(sum[24-8*i:])
		s.sum[i], borrow = bits.Sub64(s.sum[i], x, borrow)
	}
}

func (s *shard) digest() string {
	var b [32]byte
	for i := range 4 {
		binary.BigEndian.PutUint64(b[24-8*i:], s.sum[i])
	}
	return hex.EncodeToString(b[:])
}

// Shards returns, for a cluster inventory, the item count and digest of each
// source namespace with rows, by namespace; nil for a namespaced inventory.
func (v *View) Shards() []Shard {
	if v.cfg.Kind != busv1.KindClusterInventory {
		return nil
	}
	out := []Shard{}
	for _, ns := range slices.Sorted(maps.Keys(v.shards)) {
		if s := v.shards[ns]; s.count > 0 {
			out = append(out, Shard{Namespace: ns, ItemCount: s.count, Checksum: s.digest()})
		}
	}
	return out
}
