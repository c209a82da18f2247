package bus

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/nats-io/nats.go/jetstream"
)

// ListAttempt bounds one listing of an object store by ListObjects.
const ListAttempt = 30 * time.Second

// ListObjects lists the objects of obs, nil for none. nats.go's List can
// wait forever on an empty store: it learns that the listing is complete
// from a "last message" lookup, and when that lookup fails for another
// reason than "not found" (a replicated store electing its leader, seen on
// a three-node cluster) nothing else ends the wait. Each attempt here has
// its own deadline (attempt), and a timed-out attempt is tried again while
// ctx lasts.
func ListObjects(ctx context.Context, obs jetstream.ObjectStore, attempt time.Duration) ([]*jetstream.ObjectInfo, error) {
	for {
		actx, cancel := context.WithTimeout(ctx, attempt)
		infos, err := obs.List(actx)
		cancel()
		switch {
		case err == nil:
			return infos, nil
		case errors.Is(err, jetstream.ErrNoObjectsFound):
			return nil, nil
		case ctx.Err() != nil:
			return nil, ctx.Err()
		case !errors.Is(err, context.DeadlineExceeded):
			return nil, fmt.Errorf("list object store: %w", err)
		}
	}
}
