package bus

import (
	"context"
	"fmt"

	"github.com/nats-io/nats.go/jetstream"
)

// Provision creates or updates every stream, KV bucket, object store and
// durable consumer of o.Catalogue(), in that order. It is idempotent: running
// it again changes nothing, and running it after an option changed updates
// the limits in place without losing messages. Settings NATS cannot change in
// place (storage type, more replicas than servers) fail with the server's
// error naming the stream.
//
// Provision needs the JetStream API ($JS.API.>); docs/bus.md lists what to
// create by hand when the services' NATS users may not.
func Provision(ctx context.Context, js jetstream.JetStream, o Options) error {
	if err := o.Validate(); err != nil {
		return err
	}
	l := o.Catalogue()
	for _, s := range l.Streams {
		if _, err := js.CreateOrUpdateStream(ctx, s.Config); err != nil {
			return fmt.Errorf("provision stream %s: %w", s.Config.Name, err)
		}
	}
	for _, b := range l.Buckets {
		if _, err := js.CreateOrUpdateKeyValue(ctx, b.Config); err != nil {
			return fmt.Errorf("provision KV bucket %s: %w", b.Config.Bucket, err)
		}
	}
	for _, s := range l.ObjectStores {
		if _, err := js.CreateOrUpdateObjectStore(ctx, s.Config); err != nil {
			return fmt.Errorf("provision object store %s: %w", s.Config.Bucket, err)
		}
	}
	for _, c := range l.Consumers {
		if _, err := js.CreateOrUpdateConsumer(ctx, c.Stream, c.Config); err != nil {
			return fmt.Errorf("provision consumer %s on %s: %w", c.Config.Durable, c.Stream, err)
		}
	}
	return nil
}
