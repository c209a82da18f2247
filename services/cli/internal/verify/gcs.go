package verify

import (
	"context"
	"errors"
	"fmt"

	"cloud.google.com/go/storage"
	"google.golang.org/api/iterator"
	"google.golang.org/api/option"
)

// GCS reads one bucket with the Google Cloud Storage client.
type GCS struct {
	Client *storage.Client
	Bucket string
}

// NewGCS returns a GCS store of bucket with Application Default
// Credentials, read-only. The client library honours
// STORAGE_EMULATOR_HOST (an emulator, no credentials).
func NewGCS(ctx context.Context, bucket string) (GCS, error) {
	client, err := storage.NewClient(ctx, option.WithScopes(storage.ScopeReadOnly))
	if err != nil {
		return GCS{}, fmt.Errorf("create the storage client: %w", err)
	}
	return GCS{Client: client, Bucket: bucket}, nil
}

// Close releases the client.
func (g GCS) Close() error { return g.Client.Close() }

// List implements Store.
func (g GCS) List(ctx context.Context, prefix string) ([]string, error) {
	var keys []string
	it := g.Client.Bucket(g.Bucket).Objects(ctx, &storage.Query{Prefix: prefix})
	for {
		a, err := it.Next()
		if errors.Is(err, iterator.Done) {
			return keys, nil
		}
		if err != nil {
			return nil, err
		}
		keys = append(keys, a.Name)
	}
}

// Get implements Store.
func (g GCS) Get(ctx context.Context, key string, limit int64) ([]byte, error) {
	r, err := g.Client.Bucket(g.Bucket).Object(key).NewReader(ctx)
	if err != nil {
		return nil, err
	}
	defer func() { _ = r.Close() }()
	return readLimited(r, limit)
}
