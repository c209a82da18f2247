package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// ChecksumVersion is the version of the checksum Kollect writes: 2, the
// chunk-tree checksum of docs/contract.md. Version 1 (ChecksumV1) is the sha256 of
// the whole canonical item list; it can still be computed offline.
const ChecksumVersion = 2

// checksumV2Prefix starts the input of the version 2 checksum, so it never
// equals a version 1 value of any item list.
const checksumV2Prefix = "kollect.dev/checksum/v2\n"

// SortKey is the row's canonical order as one string: targetNamespace,
// targetName, namespace, name and uid joined by NUL. Strings compare like
// busv1.CompareRows, since no field contains NUL and NUL sorts first.
func SortKey(r *busv1.Row) string {
	return strings.Join([]string{r.TargetNamespace, r.TargetName, r.Namespace, r.Name, r.UID}, "\x00")
}

// Boundary reports whether the row with this sort key ends a chunk: when the
// first byte of sha256(sortKey) is zero, on average one row in 256. The rule
// depends on the row alone, so a change moves only the chunk that holds it.
func Boundary(sortKey string) bool {
	h := sha256.Sum256([]byte(sortKey))
	return h[0] == 0
}

// pageEndBelow makes one chunk in 64 end a page: a page of a 100k-row
// snapshot lists about 64 chunks (~7 KB), and its root about 6 pages.
const pageEndBelow = 4

// PageEnd reports whether a chunk that ends at the row with this sort key
// also ends a page of a paged manifest (busv1.Page): when the second byte
// of sha256(sortKey) is below 4, one chunk in 64 on average. Like
// Boundary it depends on the row alone, so a change moves only the page
// that holds its chunk. Pages are how manifests are stored, not part of
// the checksum: a reader may lay out pages any way it likes.
func PageEnd(sortKey string) bool {
	h := sha256.Sum256([]byte(sortKey))
	return h[1] < pageEndBelow
}

// Canonical returns the canonical JSON of row: encoding/json's output (map
// keys sorted) without HTML escaping and without a trailing newline.
func Canonical(row *busv1.Row) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(row); err != nil {
		return nil, fmt.Errorf("encode row %s/%s/%s: %w", row.TargetNamespace, row.TargetName, row.UID, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// ChecksumOfDigests returns the version 2 checksum of a snapshot whose
// chunks have these sha256 digests, in order: the sha256 hex of
// "kollect.dev/checksum/v2\n" followed by the 32-byte digests.
func ChecksumOfDigests(digests [][sha256.Size]byte) string {
	h := sha256.New()
	h.Write([]byte(checksumV2Prefix))
	for i := range digests {
		h.Write(digests[i][:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Chunker cuts rows, fed in canonical order, into chunks.
type Chunker struct {
	buf    []byte
	rows   int
	chunks []busv1.Chunk
	sums   [][sha256.Size]byte
	ends   []bool
	end    bool
	// Emit, when set, receives each chunk's bytes as it is cut (the slice
	// is reused afterwards).
	Emit func(c busv1.Chunk, data []byte) error
}

// Add appends one row's canonical JSON; sortKey decides whether it ends the
// chunk.
func (c *Chunker) Add(sortKey string, raw []byte) error {
	if c.rows > 0 {
		c.buf = append(c.buf, ',')
	}
	c.buf = append(c.buf, raw...)
	c.rows++
	if h := sha256.Sum256([]byte(sortKey)); h[0] == 0 { // Boundary and PageEnd
		c.end = h[1] < pageEndBelow
		return c.cut()
	}
	return nil
}

// PageEnds reports, for each chunk cut so far, whether it ends a page
// (PageEnd of its last row); the last chunk Finish cuts reports false.
func (c *Chunker) PageEnds() []bool { return c.ends }

func (c *Chunker) cut() error {
	sum := sha256.Sum256(c.buf)
	ch := busv1.Chunk{Digest: hex.EncodeToString(sum[:]), Rows: c.rows, Bytes: int64(len(c.buf))}
	if c.Emit != nil {
		if err := c.Emit(ch, c.buf); err != nil {
			return err
		}
	}
	c.chunks, c.sums, c.ends = append(c.chunks, ch), append(c.sums, sum), append(c.ends, c.end)
	c.buf, c.rows, c.end = c.buf[:0], 0, false
	return nil
}

// Finish ends the last chunk and returns every chunk with the version 2
// checksum.
func (c *Chunker) Finish() ([]busv1.Chunk, string, error) {
	if c.rows > 0 {
		if err := c.cut(); err != nil {
			return nil, "", err
		}
	}
	return c.chunks, ChecksumOfDigests(c.sums), nil
}
