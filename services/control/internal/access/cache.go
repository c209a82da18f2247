package access

import (
	"slices"
	"strings"
	"sync"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
)

// Cache remembers access review answers per identity, verb, resource,
// namespace and name for TTL, and at most Size of them, so re-checking
// many Targets that act as the same ServiceAccount costs one review per
// namespace, not one per Target. Allowed and denied answers are both kept:
// a RoleBinding or ClusterRoleBinding naming the identity (as a user, a
// ServiceAccount or one of its groups) drops its answers at once
// (Invalidate); a Role or ClusterRole edited in place is seen when the
// answer expires.
type Cache struct {
	// TTL bounds how long an answer is used.
	TTL time.Duration
	// Size bounds how many answers are kept.
	Size int
	// Now returns the current time; time.Now when nil.
	Now func() time.Time

	mu      sync.Mutex
	entries map[string]cached
	// gen counts invalidations: an answer asked before one is not kept
	// after it, as it may predate the binding change.
	gen uint64
}

// Default cache bounds: the TTL is well below the 2m access re-check, so
// each periodic re-check asks the API server again.
const (
	DefaultCacheTTL  = 30 * time.Second
	DefaultCacheSize = 100_000
)

// NewCache returns a cache with the given bounds.
func NewCache(ttl time.Duration, size int) *Cache {
	return &Cache{TTL: ttl, Size: size, entries: map[string]cached{}}
}

type cached struct {
	user    string
	groups  []string
	allowed bool
	expires time.Time
}

func (c *Cache) now() time.Time {
	if c.Now != nil {
		return c.Now()
	}
	return time.Now()
}

// cacheKey is every field that decides an answer.
func cacheKey(id Identity, a authorizationv1.ResourceAttributes) string {
	var b strings.Builder
	for _, s := range []string{id.User, id.UID, strings.Join(id.Groups, ","), a.Verb, a.Group, a.Resource, a.Subresource, a.Namespace, a.Name} {
		b.WriteString(s)
		b.WriteByte(0)
	}
	keys := make([]string, 0, len(id.Extra))
	for k := range id.Extra {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		b.WriteString(k + "=" + strings.Join(id.Extra[k], ","))
		b.WriteByte(0)
	}
	return b.String()
}

// get returns the answer kept for key, and the invalidation count to hand
// to put with the answer the API server gives when there is none.
func (c *Cache) get(key string) (allowed, ok bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	e, ok := c.entries[key]
	if !ok {
		return false, false, c.gen
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return false, false, c.gen
	}
	return e.allowed, true, c.gen
}

// put keeps an answer asked when the invalidation count was gen, unless
// an invalidation came since.
func (c *Cache) put(key string, id Identity, allowed bool, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if c.entries == nil {
		c.entries = map[string]cached{}
	}
	now := c.now()
	if len(c.entries) >= c.Size {
		for k, e := range c.entries {
			if !now.Before(e.expires) {
				delete(c.entries, k)
			}
		}
	}
	// Still full: forget arbitrary answers; they are asked again.
	for k := range c.entries {
		if len(c.entries) < c.Size {
			break
		}
		delete(c.entries, k)
	}
	if c.Size <= 0 {
		return
	}
	c.entries[key] = cached{user: id.User, groups: id.Groups, allowed: allowed, expires: now.Add(c.TTL)}
}

// Len is the number of answers kept.
func (c *Cache) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.entries)
}

// Invalidate drops the answers of every identity that subjects name: a
// user, a ServiceAccount (as its user name), or a group it belongs to.
func (c *Cache) Invalidate(subjects []rbacv1.Subject) {
	if len(subjects) == 0 {
		return
	}
	users, groups := map[string]bool{}, map[string]bool{}
	for _, s := range subjects {
		switch s.Kind {
		case rbacv1.UserKind:
			users[s.Name] = true
		case rbacv1.GroupKind:
			groups[s.Name] = true
		case rbacv1.ServiceAccountKind:
			users[ServiceAccount(s.Namespace, s.Name).User] = true
		}
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	for k, e := range c.entries {
		if users[e.user] || slices.ContainsFunc(e.groups, func(g string) bool { return groups[g] }) {
			delete(c.entries, k)
		}
	}
}
