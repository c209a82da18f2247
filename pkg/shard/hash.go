package shard

import (
	"hash/fnv"
	"strconv"
)

// Of returns the shard of key among n shards. It is stable across
// releases: the collector and the aggregator place Targets and
// inventories with it, and every replica must agree.
func Of(key string, n int) int {
	if n <= 1 {
		return 0
	}
	h := fnv.New32a()
	_, _ = h.Write([]byte(key))
	return int(h.Sum32() % uint32(n)) //nolint:gosec // n > 1 is a small positive count
}

// rank is identity's rendezvous score for shard: the member with the
// highest score prefers it most.
func rank(identity string, shard int) uint64 {
	h := fnv.New64a()
	_, _ = h.Write([]byte(identity))
	_, _ = h.Write(strconv.AppendInt([]byte{0}, int64(shard), 10))
	return h.Sum64()
}
