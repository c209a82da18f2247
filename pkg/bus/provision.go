package bus

import (
	"context"
	"errors"
	"fmt"
	"strconv"

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
		if err := keepManualBound(ctx, js, &s.Config); err != nil {
			return err
		}
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
		sc := jetstream.StreamConfig{Name: "OBJ_" + s.Config.Bucket, MaxBytes: s.Config.MaxBytes, Metadata: s.Config.Metadata}
		if err := keepManualBound(ctx, js, &sc); err != nil {
			return err
		}
		s.Config.MaxBytes, s.Config.Metadata = sc.MaxBytes, sc.Metadata
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

// MetadataMaxBytes is the stream metadata key recording the MaxBytes Provision
// last set, so that a bound an operator changed by hand (nats stream edit
// --max-bytes) is told apart and kept.
const MetadataMaxBytes = "kollect.dev/provisioned-max-bytes"

// keepManualBound keeps, in cfg, the MaxBytes of the existing stream when an
// operator changed it by hand: it differs from the value Provision recorded
// in the stream's metadata, or the stream predates the record and has
// another bound than cfg's (earlier releases set none on the snapshot
// stream). Otherwise cfg's bound is recorded.
func keepManualBound(ctx context.Context, js jetstream.JetStream, cfg *jetstream.StreamConfig) error {
	md := map[string]string{}
	for k, v := range cfg.Metadata {
		md[k] = v
	}
	cfg.Metadata = md
	s, err := js.Stream(ctx, cfg.Name)
	if errors.Is(err, jetstream.ErrStreamNotFound) {
		md[MetadataMaxBytes] = strconv.FormatInt(cfg.MaxBytes, 10)
		return nil
	}
	if err != nil {
		return fmt.Errorf("provision stream %s: %w", cfg.Name, err)
	}
	cur := s.CachedInfo().Config
	recorded, ok := cur.Metadata[MetadataMaxBytes]
	if manual := ok && recorded != strconv.FormatInt(cur.MaxBytes, 10) || !ok && cur.MaxBytes > 0 && cur.MaxBytes != cfg.MaxBytes; manual {
		cfg.MaxBytes = cur.MaxBytes
		if ok {
			md[MetadataMaxBytes] = recorded
		}
		return nil
	}
	md[MetadataMaxBytes] = strconv.FormatInt(cfg.MaxBytes, 10)
	return nil
}
