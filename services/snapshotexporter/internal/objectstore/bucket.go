package objectstore

import "context"

// Bucket is the part of an object store the Sink uses: a flat key space of
// byte objects.
type Bucket interface {
	// Put stores body at key with the given Content-Type and
	// Content-Encoding ("" for none), replacing any object there.
	Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string) error
	// Get returns the object at key; found is false when it is absent.
	Get(ctx context.Context, key string) (body []byte, found bool, err error)
	// Delete removes the object at key; an absent object is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the keys of every object whose key starts with prefix.
	List(ctx context.Context, prefix string) ([]string, error)
}

// Prober is implemented by buckets that can verify (and, in provisioning
// mode ensure, create) themselves. The Sink calls Probe from Check and once
// before its first write.
type Prober interface {
	Probe(ctx context.Context) error
}
