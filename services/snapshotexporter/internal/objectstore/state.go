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
	// Size and Version are the data object's length and version (S3 ETag,
	// GCS generation) as the store reported them on the put: a drift check
	// compares them with the object's (absent in states written before
	// they were recorded, and then not compared).
	Size    int64  `json:"size,omitempty"`
	Version string `json:"version,omitempty"`
	// ExportedAt is the envelope's export time.
	ExportedAt time.Time `json:"exportedAt"`
	// ColumnTypes are the types of the Parquet file's attr_ columns, by
	// column name: the types a column no row of the next file has a value
	// for keeps. Absent for JSON and NDJSON.
	ColumnTypes map[string]ColumnType `json:"columnTypes,omitempty"`
}

// StateLimit is the most bytes read of a state object: a state is a few
// hundred bytes (more with many Parquet columns), so an object over it is
// not Kollect's and reading it is refused rather than held in memory.
const StateLimit = 16 << 20

func stateOf(env *busv1.Envelope, obj *Object, data Info) State {
	return State{Revision: env.Revision, Checksum: env.Checksum, Key: obj.Key, ItemCount: env.ItemCount,
		ExportedAt: env.ExportedAt.UTC(), ColumnTypes: obj.ColumnTypes, Size: data.Size, Version: data.Version}
}

// stored is the state object as read: its content and the object's Info
// (whose Version fences the next state put).
type stored struct {
	State
	// found is false when there is no state object; exists is true when
	// there is an object, readable or not.
	found, exists bool
	object        Info
}

// readState returns the state stored at key. An unreadable state object
// counts as none (found false, exists true), so the next write replaces it.
func readState(ctx context.Context, b Bucket, key string) (stored, error) {
	body, info, found, err := b.Get(ctx, key, StateLimit)
	if err != nil || !found {
		return stored{}, err
	}
	cur := stored{exists: true, object: info}
	var st State
	if json.Unmarshal(body, &st) == nil {
		cur.State, cur.found = st, true
	}
	return cur, nil
}

// writeState puts st at key on condition that the state object is still
// the one read as cur: another writer's state written meanwhile makes it
// fail with ErrPrecondition.
func writeState(ctx context.Context, b Bucket, key string, st State, cur stored) error {
	body, err := json.Marshal(st)
	if err != nil {
		return fmt.Errorf("encode state: %w", err)
	}
	cond := Condition{Absent: true}
	if cur.exists {
		cond = Condition{Version: cur.object.Version}
	}
	_, err = b.Put(ctx, key, append(body, '\n'), ContentTypeJSON, "", cond)
	return err
}
