package objectstore

import (
	"context"
	"encoding/json"
	"fmt"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// State is the content of an inventory's state object (for Parquet, the
// _latest.json pointer): what the sink last wrote.
type State struct {
	// Revision and Checksum are the snapshot's.
	Revision uint64 `json:"revision"`
	Checksum string `json:"checksum"`
	// Key is the data object written.
	Key string `json:"key"`
	// ItemCount is the number of rows in it.
	ItemCount int `json:"itemCount"`
	// ExportedAt is the envelope's export time.
	ExportedAt time.Time `json:"exportedAt"`
	// ColumnTypes are the types of the Parquet file's attr_ columns, by
	// column name: the types a column no row of the next file has a value
	// for keeps. Absent for JSON and NDJSON.
	ColumnTypes map[string]ColumnType `json:"columnTypes,omitempty"`
}

func stateOf(env *busv1.Envelope, obj *Object) State {
	return State{Revision: env.Revision, Checksum: env.Checksum, Key: obj.Key, ItemCount: env.ItemCount,
		ExportedAt: env.ExportedAt.UTC(), ColumnTypes: obj.ColumnTypes}
}

// readState returns the state stored at key; found is false when there is
// none. An unreadable state object counts as none, so the next write
// replaces it.
func readState(ctx context.Context, b Bucket, key string) (State, bool, error) {
	body, found, err := b.Get(ctx, key)
	if err != nil || !found {
		return State{}, false, err
	}
	var st State
	if json.Unmarshal(body, &st) != nil {
		return State{}, false, nil //nolint:nilerr // a corrupt state is treated as absent: the next write replaces it
	}
	return st, true, nil
}

func writeState(ctx context.Context, b Bucket, key string, st State) error {
	body, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	return b.Put(ctx, key, append(body, '\n'), ContentTypeJSON, "")
}
