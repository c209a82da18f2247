package busv1

// Manifest lists, in canonical order, the chunks that hold one snapshot's
// rows. A snapshot's items are the chunks' rows in manifest order, and its
// checksum (version 2, docs/contract.md) is computed from the chunk digests, so a
// reader verifies every chunk it loads and the whole against the event.
//
// Manifests, their pages and chunks are content-addressed objects in the
// envelope object store (pkg/bus ManifestObjectName, PageObjectName,
// ChunkObjectName): consecutive revisions share every chunk and page they
// did not change, a revision writes only the chunks and pages it changed,
// and the same content is never stored twice.
//
// A manifest is stored in one of two forms. A flat manifest lists every
// chunk in Chunks (small snapshots, and every manifest written before
// pages existed). A paged manifest is a root that lists Pages instead, each
// a ManifestPage object holding a run of consecutive chunks; a one-row
// change then writes one page and the root rather than the whole chunk
// list. Readers (pkg/history Loader.Manifest) resolve the pages and hand
// out the flattened chunk list, so both forms read the same.
type Manifest struct {
	// Inventory the snapshot belongs to.
	Inventory NamespacedName `json:"inventory"`
	// Checksum is the snapshot's checksum (see snapshot.ChecksumOfDigests).
	Checksum string `json:"checksum"`
	// ItemCount is the number of rows, the sum of the chunks' Rows.
	ItemCount int `json:"itemCount"`
	// Bytes is the sum of the chunks' Bytes.
	Bytes int64 `json:"bytes"`
	// Chunks are the snapshot's chunks in canonical order: stored in a flat
	// manifest, and filled in from the pages when a reader resolves a paged
	// one.
	Chunks []Chunk `json:"chunks,omitempty"`
	// Pages are a paged manifest's pages in order; their chunks, joined,
	// are the snapshot's chunks. Empty in a flat manifest.
	Pages []Page `json:"pages,omitempty"`
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

// Page references one ManifestPage object of a paged manifest. A page ends
// after a chunk whose last row's sort key is a page boundary
// (snapshot.PageEnd) or at the last chunk, so a change moves only the page
// that holds its chunk.
type Page struct {
	// Digest is the sha256 hex of the page object's bytes; the object is
	// named after it.
	Digest string `json:"digest"`
	// Size is the page object's size in bytes.
	Size int64 `json:"size"`
	// Chunks is the number of chunks the page lists.
	Chunks int `json:"chunks"`
	// Rows is the sum of the page's chunks' Rows.
	Rows int `json:"rows"`
	// Bytes is the sum of the page's chunks' Bytes.
	Bytes int64 `json:"bytes"`
}

// ManifestPage is one page of a paged manifest: a run of consecutive chunks.
type ManifestPage struct {
	// Chunks are the page's chunks in canonical order.
	Chunks []Chunk `json:"chunks"`
}
