package history

import (
	"container/list"
	"sync"
)

// chunkCache keeps chunk bytes by digest, evicting the least recently used
// beyond a byte budget. Chunks are immutable, so a hit is always current.
type chunkCache struct {
	mu    sync.Mutex
	max   int64
	size  int64
	order *list.List // of *cached, most recent first
	byKey map[string]*list.Element
}

type cached struct {
	digest string
	data   []byte
}

func newChunkCache(maxBytes int64) *chunkCache {
	return &chunkCache{max: maxBytes, order: list.New(), byKey: map[string]*list.Element{}}
}

func (c *chunkCache) get(digest string) ([]byte, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.byKey[digest]
	if !ok {
		return nil, false
	}
	c.order.MoveToFront(e)
	return e.Value.(*cached).data, true
}

func (c *chunkCache) put(digest string, data []byte) {
	n := int64(len(data))
	if n > c.max {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if _, ok := c.byKey[digest]; ok {
		return
	}
	c.byKey[digest] = c.order.PushFront(&cached{digest: digest, data: data})
	c.size += n
	for c.size > c.max {
		last := c.order.Back()
		v := last.Value.(*cached)
		c.order.Remove(last)
		delete(c.byKey, v.digest)
		c.size -= int64(len(v.data))
	}
}
