package app

import (
	"context"
	"errors"
	"time"

	"github.com/go-logr/logr"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
)

// A Need is a stream, consumer, key-value bucket or object store a service
// opens on the bus; control provisions them.
type Need struct {
	kind, stream, name string
}

// Bucket needs the key-value bucket name.
func Bucket(name string) Need { return Need{kind: "bucket", name: name} }

// ObjectStore needs the object store name.
func ObjectStore(name string) Need { return Need{kind: "object store", name: name} }

// Stream needs the stream name.
func Stream(name string) Need { return Need{kind: "stream", name: name} }

// Consumer needs the consumer name of stream.
func Consumer(stream, name string) Need { return Need{kind: "consumer", stream: stream, name: name} }

// String names the need ("bucket KOLLECT_CONFIG").
func (n Need) String() string { return n.kind + " " + n.name }

func (n Need) check(ctx context.Context, js jetstream.JetStream) error {
	var err error
	switch n.kind {
	case "bucket":
		_, err = js.KeyValue(ctx, n.name)
	case "object store":
		_, err = js.ObjectStore(ctx, n.name)
	case "stream":
		_, err = js.Stream(ctx, n.name)
	case "consumer":
		_, err = js.Consumer(ctx, n.stream, n.name)
	}
	return err
}

// Missing reports whether err says that a stream, consumer, bucket or object
// store does not exist (yet).
func Missing(err error) bool {
	return errors.Is(err, jetstream.ErrBucketNotFound) || errors.Is(err, jetstream.ErrStreamNotFound) ||
		errors.Is(err, jetstream.ErrConsumerNotFound)
}

// Unavailable reports whether err says that the bus could not answer now:
// a request timed out, nobody answered it, or JetStream said it is
// temporarily unavailable (503: a cluster electing its meta leader after
// its nodes restarted).
func Unavailable(err error) bool {
	var api *jetstream.APIError
	return errors.Is(err, context.DeadlineExceeded) || errors.Is(err, nats.ErrTimeout) ||
		errors.Is(err, nats.ErrNoResponders) || errors.Is(err, jetstream.ErrJetStreamNotEnabled) ||
		(errors.As(err, &api) && api.Code == 503)
}

// WaitProvisioned returns once every need exists on the bus, waiting (100ms
// doubling to 5s) while any is missing or the bus cannot answer
// (Unavailable): control provisions the bus at start, and a service started
// before it, or while NATS restarts, waits instead of crash looping.
// Provisioning creates them one by one, so all are checked on each turn.
// It logs each wait on ctx's logger; it fails on ctx's end and on any
// other error (a permission refused, say).
func WaitProvisioned(ctx context.Context, js jetstream.JetStream, needs ...Need) error {
	wait := 100 * time.Millisecond
	for {
		var err error
		for _, n := range needs {
			if err = n.check(ctx, js); err != nil {
				break
			}
		}
		if ctx.Err() != nil {
			return ctx.Err()
		}
		if !Missing(err) && !Unavailable(err) {
			return err
		}
		logr.FromContextOrDiscard(ctx).Info("waiting for the bus to be provisioned", KeyReason, err.Error())
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(wait):
		}
		wait = min(2*wait, 5*time.Second)
	}
}
