package objectstore

import (
	"context"
	"fmt"

	"kollect.dev/kollect/pkg/sink"
)

// Drift checks that the bucket still holds s: the state object names s's
// revision and checksum, and the data object it names is present with the
// size and version the write recorded. It costs one GET and one HEAD and
// reads no data. A state naming a newer revision is not drift: that
// snapshot is on its way.
func (k *Sink) Drift(ctx context.Context, s sink.Snapshot) (string, error) {
	env := &s.Envelope
	stateKey := k.layout.StateKey(env)
	cur, err := readState(ctx, k.bucket, stateKey)
	if err != nil {
		return "", fmt.Errorf("check %s revision %d in %s: read state %s: %w", env.Inventory, env.Revision, k.name, stateKey, err)
	}
	switch {
	case !cur.exists:
		return "state object " + stateKey + " missing", nil
	case !cur.found:
		return "state object " + stateKey + " unreadable", nil
	case cur.Revision > env.Revision:
		return "", nil
	case cur.Revision != env.Revision || cur.Checksum != env.Checksum:
		return fmt.Sprintf("state object %s names revision %d checksum %s, want revision %d checksum %s",
			stateKey, cur.Revision, cur.Checksum, env.Revision, env.Checksum), nil
	}
	info, found, err := k.bucket.Stat(ctx, cur.Key)
	if err != nil {
		return "", fmt.Errorf("check %s revision %d in %s: %w", env.Inventory, env.Revision, k.name, err)
	}
	switch {
	case !found:
		return "data object " + cur.Key + " missing", nil
	case cur.Size != 0 && info.Size != cur.Size:
		return fmt.Sprintf("data object %s holds %d bytes, want %d", cur.Key, info.Size, cur.Size), nil
	case cur.Version != "" && info.Version != cur.Version:
		return "data object " + cur.Key + " was rewritten since the export", nil
	}
	return "", nil
}
