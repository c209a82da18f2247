package index

import (
	"bytes"
	"encoding/json"
	"fmt"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// entry is a row with its canonical JSON (snapshot.Checksum's encoding),
// kept so that checksums and deltas never re-encode an unchanged row.
type entry struct {
	row busv1.Row
	raw []byte
}

// Index holds the current rows, grouped by Target namespace so that an
// inventory reads only its own namespace ("" holds every ClusterTarget's rows).
type Index struct {
	byNS map[string]map[busv1.RowKey]*entry
	n    int
}

// New returns an empty index.
func New() *Index { return &Index{byNS: map[string]map[busv1.RowKey]*entry{}} }

// Len returns the number of rows held.
func (x *Index) Len() int { return x.n }

// Canonical returns row's canonical JSON: encoding/json's output without
// HTML escaping and without a trailing newline, as snapshot.Checksum hashes
// it.
func Canonical(row *busv1.Row) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(row); err != nil {
		return nil, fmt.Errorf("encode row %s/%s/%s: %w", row.TargetNamespace, row.TargetName, row.UID, err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'}), nil
}

// Put stores row under key and reports whether the content changed. A row
// whose own identity disagrees with key is stored under key all the same:
// the bucket key is the collector's statement of identity.
func (x *Index) Put(key busv1.RowKey, row busv1.Row) (bool, error) {
	raw, err := Canonical(&row)
	if err != nil {
		return false, err
	}
	ns := namespaceOf(key)
	m := x.byNS[ns]
	if m == nil {
		m = map[busv1.RowKey]*entry{}
		x.byNS[ns] = m
	}
	if old, ok := m[key]; ok {
		if bytes.Equal(old.raw, raw) {
			return false, nil
		}
		old.row, old.raw = row, raw
		return true, nil
	}
	m[key] = &entry{row: row, raw: raw}
	x.n++
	return true, nil
}

// Delete removes the row of key and reports whether there was one.
func (x *Index) Delete(key busv1.RowKey) bool {
	ns := namespaceOf(key)
	m := x.byNS[ns]
	if _, ok := m[key]; !ok {
		return false
	}
	delete(m, key)
	x.n--
	if len(m) == 0 {
		delete(x.byNS, ns)
	}
	return true
}

func namespaceOf(key busv1.RowKey) string {
	if key.ClusterTarget {
		return ""
	}
	return key.TargetNamespace
}

// Affects reports whether a change of the row under key can change inv's
// snapshot, whatever the row's content.
func Affects(inv *busv1.InventoryConfig, key busv1.RowKey) bool {
	if inv.Kind == busv1.KindClusterInventory {
		if !key.ClusterTarget {
			return false
		}
		for _, t := range inv.TargetRefs {
			if t == key.TargetName {
				return true
			}
		}
		return false
	}
	return !key.ClusterTarget && key.TargetNamespace != "" && key.TargetNamespace == inv.Namespace
}

// Snapshot builds inv's canonical snapshot from the rows held: members only
// (snapshot.Member), in canonical order, deduped, with checksum and, for a
// cluster inventory, per-namespace shards.
func (x *Index) Snapshot(inv *busv1.InventoryConfig) (*Snapshot, error) {
	ns := inv.Namespace
	if inv.Kind == busv1.KindClusterInventory {
		ns = ""
	}
	var members []*entry
	for _, e := range x.byNS[ns] {
		if snapshot.Member(inv, &e.row) {
			members = append(members, e)
		}
	}
	return build(inv, members)
}
