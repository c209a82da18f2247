package snapshot

import (
	"crypto/sha256"
	"encoding/hex"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Sort puts rows in the canonical order of docs/contract.md (targetNamespace,
// targetName, namespace, name, uid), in place.
func Sort(rows []busv1.Row) { slices.SortFunc(rows, busv1.CompareRows) }

// Checksum returns the checksum of rows, which must already be sorted: the
// version 2 checksum of docs/contract.md (ChecksumVersion), computed from the
// rows' chunks (Chunker, Canonical).
func Checksum(rows []busv1.Row) (string, error) {
	var c Chunker
	for i := range rows {
		raw, err := Canonical(&rows[i])
		if err != nil {
			return "", err
		}
		if err := c.Add(SortKey(&rows[i]), raw); err != nil {
			return "", err
		}
	}
	_, sum, err := c.Finish()
	return sum, err
}

// ChecksumV1 returns the version 1 checksum of rows, which must already be
// sorted: the sha256 hex of the canonical JSON of the item list ("[]" when
// empty). Kollect no longer writes it; it stays computable offline for
// exports made before version 2.
func ChecksumV1(rows []busv1.Row) (string, error) {
	h := sha256.New()
	h.Write([]byte{'['})
	for i := range rows {
		if i > 0 {
			h.Write([]byte{','})
		}
		raw, err := Canonical(&rows[i])
		if err != nil {
			return "", err
		}
		h.Write(raw)
	}
	h.Write([]byte{']'})
	return hex.EncodeToString(h.Sum(nil)), nil
}

// Envelope sorts rows and returns the envelope of one inventory at revision
// and generation. Cluster and exportedAt are left for the exporter to stamp.
func Envelope(inv busv1.NamespacedName, revision uint64, generation int64, rows []busv1.Row) (busv1.Envelope, error) {
	Sort(rows)
	sum, err := Checksum(rows)
	if err != nil {
		return busv1.Envelope{}, err
	}
	if rows == nil {
		rows = []busv1.Row{}
	}
	return busv1.Envelope{
		SchemaVersion: busv1.SchemaVersion, Checksum: sum, Revision: revision, Generation: generation,
		Inventory: inv, ItemCount: len(rows), Items: rows,
	}, nil
}
