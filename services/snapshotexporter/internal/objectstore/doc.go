// Package objectstore is the object-store projection of docs/contract.md shared by
// the s3 and gcs snapshot sinks: how a snapshot becomes objects (keys,
// bodies, content types, Parquet schema), and the Sink that writes them
// through a small Bucket interface while keeping the revision rule (an older
// revision is ignored, a repeated one writes nothing).
//
// # Objects
//
// JSON and NDJSON write one object per inventory at <prefix>/ + the rendered
// pathTemplate (default inventory/{namespace}/{name}{extension}), overwritten
// on each export. JSON holds the envelope. NDJSON holds one header line (the
// envelope without items: schemaVersion, checksum, revision, generation,
// cluster, inventory, itemCount, exportedAt) and then one row per line, so
// a consumer recovers revision and checksum from the first line. With
// compression the extension gains .gz or .zst and the object's Content-Type
// is application/gzip or application/zstd, without Content-Encoding: the
// object is a compressed file and HTTP clients must not decompress it
// transparently.
//
// Parquet writes <prefix>/inventory/part_cluster=<c>/part_namespace=<ns>/part_inventory=<inv>/revision=<r>.parquet
// and then the pointer object _latest.json in the same folder, holding
// {revision, checksum, key, itemCount, exportedAt, columnTypes}. The
// partition keys are prefixed part_ so that no key equals a column name: an
// engine reading the folders as Hive partitions (DuckDB by default, Athena,
// Spark) would otherwise return the folder's value for the column's. The
// leading underscore keeps dataset readers (Spark, Hive, DuckDB globbing
// *.parquet) from reading the pointer as data. Revision files are kept as
// history; deleting the inventory (deletionPolicy Delete) removes the whole
// folder. Columns and types are in parquet.go and coltype.go: an attr_
// column's type is the attribute's declared Profile type, which the
// snapshot carries (Envelope.AttributeTypes: int is int64, float double,
// bool boolean, string string, list and map JSON), when every value fits
// it; otherwise it depends on the JSON kind of its values only (every
// number a double), and a column without values keeps the type the pointer
// recorded.
//
// Folders of the layout before the part_ keys (cluster=<c>/ns=<ns>/name=<inv>/)
// are left in place as history; the first write of an inventory in the new
// layout deletes the old folder's pointer (a reader following it would read
// stale rows forever), and deleting the inventory removes the old folder too.
//
// An inventory namespace "" (a ClusterInventory) is written as _cluster,
// both in {namespace} and in part_namespace=.
//
// # State
//
// Each inventory has one small state object: for Parquet the _latest.json
// pointer, for JSON and NDJSON <prefix>/.kollect/state/cluster=<c>/ns=<ns>/name=<inv>.json
// with the same fields (a leading dot hides it from dataset readers, so its
// keys need no part_ prefix), plus the data object's size and version (S3
// ETag, GCS generation) as the store reported them on the put. Write reads
// it (one GET, at most StateLimit bytes: a larger object is a permanent
// error naming it) and ignores a snapshot of an older revision unless it is
// a replay, and writes nothing when revision and checksum are those stored
// unless it is a repair. The data object is written before the state, so a
// failure between the two is repaired by the retry. A change thus costs one
// GET and two PUTs and encodes the snapshot once: no listing, no object
// read back (the first Parquet write of an inventory adds a HEAD, and a
// DELETE when there is one, of the old layout's pointer).
//
// # Fencing
//
// Two writers of one inventory (a replica that lost its claim finishing an
// older write after a newer one) are fenced by conditional puts: the state
// put is conditional on the state object read (S3 If-Match on its ETag, or
// If-None-Match: * when there was none; GCS ifGenerationMatch), and the
// JSON or NDJSON document, overwritten in place, is put on condition that
// it is still the version the state recorded. A writer whose condition
// fails re-reads the state: a newer (or equal) revision written meanwhile
// means it gives way without error, anything else is a transient error and
// the retry starts over. One window remains: a document changed by hand
// while two writers race may be left holding the older writer's rows under
// the newer state; the state's recorded version no longer matches and the
// next drift check repairs it. Deletes are not fenced.
//
// # Drift
//
// Drift (sink.DriftChecker) reads the state (one GET) and HEADs the data
// object it names: the state missing or unreadable, another revision or
// checksum, the data object missing, of another size or another version
// (rewritten by hand) is drift. A repair (Snapshot.Repair) writes the data
// object and the state again, unconditionally for the data object. Edits
// that keep an object's version (none on S3 or GCS) are not seen.
//
// The package owns no SDK: the s3 and gcs packages implement Bucket.
package objectstore
