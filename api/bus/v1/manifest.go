package busv1

// Manifest lists, in canonical order, the chunks that hold one snapshot's
// rows. A snapshot's items are the chunks' rows in manifest order, and its
// checksum (version 2, docs/contract.md) is computed from the chunk digests, so a
// reader verifies every chunk it loads and the whole against the event.
//
// Manifests and chunks are content-addressed objects in the envelope object
// store (pkg/bus ManifestObjectName, ChunkObjectName): consecutive revisions
// share every chunk they did not change, a revision writes only the chunks
// it changed, and the same content is never stored twice.
type Manifest struct {
	// Inventory the snapshot belongs to.
	Inventory NamespacedName `json:"inventory"`
	// Checksum is the snapshot's checksum (see snapshot.ChecksumOfDigests).
	Checksum string `json:"checksum"`
	// ItemCount is the number of rows, the sum of the chunks' Rows.
	ItemCount int `json:"itemCount"`
	// Bytes is the sum of the chunks' Bytes.
	Bytes int64 `json:"bytes"`
	// Chunks are the snapshot's chunks in canonical order.
	Chunks []Chunk `json:"chunks"`
}

// Chunk is one run of consecutive rows of a snapshot in canonical order: the
// rows' canonical JSON joined by ",". A chunk ends at a row whose sort key
// is a boundary (snapshot.Boundary) or at the last row.
type Chunk struct {
	// Digest is the sha256 hex of the chunk's bytes; the object is named
	// after it.
	Digest string `json:"digest"`
	// Rows is the number of rows in the chunk.
	Rows int `json:"rows"`
	// Bytes is the chunk's size.
	Bytes int64 `json:"bytes"`
}
