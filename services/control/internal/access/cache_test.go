package access

import (
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

func TestCacheKeepsAnswersWithinTheirBounds(t *testing.T) {
	now := time.Unix(0, 0)
	sa, other := ServiceAccount("team-a", "kollect"), ServiceAccount("team-b", "kollect")
	list := func(ns string) string {
		return cacheKey(sa, authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps", Namespace: ns})
	}
	fresh := func() *Cache {
		c := NewCache(30*time.Second, 10)
		c.Now = func() time.Time { return now }
		c.put(list("a"), sa, true, 0)
		c.put(cacheKey(other, authorizationv1.ResourceAttributes{Verb: "list", Resource: "configmaps"}), other, false, 0)
		return c
	}
	for _, tc := range []struct {
		name string
		do   func(c *Cache)
		want bool // the answer for list("a") is still kept
	}{
		{"an answer is kept until its TTL", func(c *Cache) { now = now.Add(29 * time.Second) }, true},
		{"an answer expires after its TTL", func(c *Cache) { now = now.Add(30 * time.Second) }, false},
		{"a binding naming the ServiceAccount drops it", func(c *Cache) {
			c.Invalidate([]rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "team-a", Name: "kollect"}})
		}, false},
		{"a binding naming one of its groups drops it", func(c *Cache) {
			c.Invalidate([]rbacv1.Subject{{Kind: rbacv1.GroupKind, Name: "system:serviceaccounts:team-a"}})
		}, false},
		{"a binding naming someone else keeps it", func(c *Cache) {
			c.Invalidate([]rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "team-b", Name: "kollect"}})
		}, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			now = time.Unix(0, 0)
			c := fresh()
			tc.do(c)
			if _, ok, _ := c.get(list("a")); ok != tc.want {
				t.Errorf("kept = %v, want %v", ok, tc.want)
			}
		})
	}
	t.Run("an answer asked before a binding changed is not kept after it", func(t *testing.T) {
		now = time.Unix(0, 0)
		c := NewCache(30*time.Second, 10)
		key := list("b")
		_, _, gen := c.get(key)
		c.Invalidate([]rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "team-a", Name: "kollect"}})
		c.put(key, sa, true, gen)
		if _, ok, _ := c.get(key); ok {
			t.Error("the answer asked before the invalidation is kept")
		}
	})
	t.Run("the cache never holds more than its size", func(t *testing.T) {
		now = time.Unix(0, 0)
		c := fresh()
		for i := range 50 {
			c.put(list(string(rune('a'+i))), sa, true, 0)
		}
		if c.Len() > 10 {
			t.Errorf("Len = %d, want at most 10", c.Len())
		}
	})
}
