package snapshot

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"slices"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// Sort puts rows in the canonical order of CONTRACT.md (targetNamespace,
// targetName, namespace, name, uid), in place.
func Sort(rows []busv1.Row) { slices.SortFunc(rows, busv1.CompareRows) }

// Checksum returns the sha256 hex of the canonical JSON of rows, which must
// already be sorted. Canonical JSON is encoding/json's output (map keys
// sorted) without HTML escaping and without a trailing newline; an empty
// snapshot hashes "[]".
func Checksum(rows []busv1.Row) (string, error) {
	h := sha256.New()
	if len(rows) == 0 {
		h.Write([]byte("[]"))
		return hex.EncodeToString(h.Sum(nil)), nil
	}
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	h.Write([]byte{'['})
	for i, r := range rows {
		if i > 0 {
			h.Write([]byte{','})
		}
		buf.Reset()
		if err := enc.Encode(r); err != nil {
			return "", fmt.Errorf("encode row %s/%s: %w", r.TargetName, r.UID, err)
		}
		h.Write(bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}))
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
