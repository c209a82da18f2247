package objectstore

import (
	"context"
	"errors"
	"fmt"
)

// Bucket is the part of an object store the Sink uses: a flat key space of
// byte objects, each with a version the store changes on every write (an
// S3 ETag, a GCS generation).
type Bucket interface {
	// Put stores body at key with the given Content-Type and
	// Content-Encoding ("" for none), replacing any object there, when the
	// object still satisfies cond (the zero Condition always does); else it
	// returns an error wrapping ErrPrecondition. It returns the stored
	// object's Info.
	Put(ctx context.Context, key string, body []byte, contentType, contentEncoding string, cond Condition) (Info, error)
	// Get returns the object at key and its Info; found is false when it
	// is absent. An object larger than limit bytes is an error wrapping
	// ErrTooLarge, and no more than limit+1 bytes of it are read.
	Get(ctx context.Context, key string, limit int64) (body []byte, info Info, found bool, err error)
	// Stat returns the Info of the object at key without reading it; found
	// is false when it is absent.
	Stat(ctx context.Context, key string) (info Info, found bool, err error)
	// Delete removes the object at key; an absent object is not an error.
	Delete(ctx context.Context, key string) error
	// List returns the keys of every object whose key starts with prefix.
	List(ctx context.Context, prefix string) ([]string, error)
}

// Info describes a stored object.
type Info struct {
	// Size is the object's length in bytes.
	Size int64
	// Version changes whenever the object is written: the S3 ETag as the
	// store returns it, the GCS generation in decimal.
	Version string
}

// Condition is the precondition of a conditional Put: the zero value puts
// unconditionally.
type Condition struct {
	// Absent puts only when no object is at the key (S3 If-None-Match: *,
	// GCS ifGenerationMatch=0).
	Absent bool
	// Version, when set, puts only when the object at the key has this
	// version (S3 If-Match, GCS ifGenerationMatch).
	Version string
}

// ErrPrecondition is wrapped by a Put whose Condition did not hold: another
// writer (or a hand) changed the object since it was read.
var ErrPrecondition = errors.New("the object changed since it was read")

// ErrTooLarge is wrapped by a Get of an object over its limit.
var ErrTooLarge = errors.New("object over the read limit")

// TooLarge returns the error of a Get of key over limit bytes, wrapping
// ErrTooLarge, for the Bucket implementations.
func TooLarge(key string, limit int64) error {
	return fmt.Errorf("object %s is larger than the read limit of %d bytes: %w", key, limit, ErrTooLarge)
}

// Prober is implemented by buckets that can verify (and, in provisioning
// mode ensure, create) themselves. The Sink calls Probe from Check and once
// before its first write.
type Prober interface {
	Probe(ctx context.Context) error
}
