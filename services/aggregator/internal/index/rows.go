package index

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"strings"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// Row is one row as the aggregator holds it: its identity, canonical order
// and canonical JSON. Rows are immutable once stored; a change replaces the
// Row.
type Row struct {
	// Key is the row's identity.
	Key busv1.RowKey
	// Sort is snapshot.SortKey of the row.
	Sort string
	// TargetName, Namespace and UID are the row's fields membership and
	// dedupe read.
	TargetName, Namespace, UID string
	// Raw is the row's canonical JSON.
	Raw []byte
	// Types are the declared attribute types sent with the row (nil:
	// none), until Rows.Put makes them its Target's and clears them.
	Types busv1.AttributeTypes
	// boundary is snapshot.Boundary(Sort): the row ends a chunk.
	boundary bool
}

// identity is the part of a row the aggregator reads.
type identity struct {
	TargetNamespace string `json:"targetNamespace"`
	TargetName      string `json:"targetName"`
	Namespace       string `json:"namespace"`
	Name            string `json:"name"`
	UID             string `json:"uid"`
}

// entry is the part of a busv1.RowEntry the aggregator reads.
type entry struct {
	Row   json.RawMessage      `json:"row"`
	Types busv1.AttributeTypes `json:"attributeTypes"`
}

// escaped marks JSON that encoding/json's HTML escaping produced: a
// collector of an earlier release wrote rows that way.
var escaped = []byte(`\u00`)

// ParseEntry reads a rows-bucket value (busv1.RowEntry) into a Row, keeping
// the row's bytes verbatim when they are canonical (the collector writes them
// so) and re-encoding them otherwise.
func ParseEntry(value []byte) (*Row, error) {
	var e entry
	if err := json.Unmarshal(value, &e); err != nil {
		return nil, fmt.Errorf("decode row entry: %w", err)
	}
	raw := []byte(e.Row)
	if bytes.Contains(raw, escaped) {
		var r busv1.Row
		if err := json.Unmarshal(raw, &r); err != nil {
			return nil, fmt.Errorf("decode row: %w", err)
		}
		c, err := snapshot.Canonical(&r)
		if err != nil {
			return nil, err
		}
		raw = c
	}
	r, err := FromRaw(raw)
	if err != nil {
		return nil, err
	}
	r.Types = e.Types
	return r, nil
}

// FromRaw returns the Row of one row's canonical JSON.
func FromRaw(raw []byte) (*Row, error) {
	var id identity
	if err := json.Unmarshal(raw, &id); err != nil {
		return nil, fmt.Errorf("decode row: %w", err)
	}
	r := busv1.Row{TargetNamespace: id.TargetNamespace, TargetName: id.TargetName, Namespace: id.Namespace,
		Name: id.Name, UID: id.UID}
	sort := snapshot.SortKey(&r)
	// The identity strings share the sort key's memory.
	f := strings.SplitN(sort, "\x00", 5)
	r = busv1.Row{TargetNamespace: f[0], TargetName: f[1], Namespace: f[2], Name: f[3], UID: f[4]}
	return &Row{Key: r.Key(), Sort: sort, TargetName: f[1], Namespace: f[2], UID: f[4],
		Raw: raw, boundary: snapshot.Boundary(sort)}, nil
}

// Rows holds every current row by key and by Target namespace ("" for
// ClusterTargets), the unit an inventory selects from, and the declared
// attribute types of each Target that has rows.
type Rows struct {
	byNS    map[string]map[busv1.RowKey]*Row
	n       int
	targets map[busv1.RowKey]*target
}

// target is what Rows knows of one Target: its rows and the attribute
// types its latest row written came with.
type target struct {
	rows  int
	types busv1.AttributeTypes
}

// targetOf is the key of a row's Target in Rows.targets: the row key
// without its uid.
func targetOf(key busv1.RowKey) busv1.RowKey {
	key.UID = ""
	return key
}

// NewRows returns an empty Rows.
func NewRows() *Rows {
	return &Rows{byNS: map[string]map[busv1.RowKey]*Row{}, targets: map[busv1.RowKey]*target{}}
}

// Len is the number of rows.
func (x *Rows) Len() int { return x.n }

// Put stores r and returns the row it replaced, if any; changed is false
// when r equals the stored row.
func (x *Rows) Put(r *Row) (old *Row, changed bool) {
	ns := namespaceOf(r.Key)
	m := x.byNS[ns]
	if m == nil {
		m = map[busv1.RowKey]*Row{}
		x.byNS[ns] = m
	}
	old = m[r.Key]
	t := x.targets[targetOf(r.Key)]
	if t == nil {
		t = &target{}
		x.targets[targetOf(r.Key)] = t
	}
	if !maps.Equal(t.types, r.Types) {
		t.types = r.Types
	}
	r.Types = nil
	if old != nil && bytes.Equal(old.Raw, r.Raw) {
		return old, false
	}
	if old == nil {
		x.n++
		t.rows++
	}
	m[r.Key] = r
	return old, true
}

// Delete removes key and returns the row it held, nil if none.
func (x *Rows) Delete(key busv1.RowKey) *Row {
	ns := namespaceOf(key)
	m := x.byNS[ns]
	old := m[key]
	if old == nil {
		return nil
	}
	delete(m, key)
	x.n--
	if t := x.targets[targetOf(key)]; t != nil {
		if t.rows--; t.rows <= 0 {
			delete(x.targets, targetOf(key))
		}
	}
	if len(m) == 0 {
		delete(x.byNS, ns)
	}
	return old
}

// InNamespace returns the rows of the Targets of namespace ns ("" for
// ClusterTargets).
func (x *Rows) InNamespace(ns string) []*Row {
	out := make([]*Row, 0, len(x.byNS[ns]))
	for _, r := range x.byNS[ns] {
		out = append(out, r)
	}
	return out
}

// Namespaces returns the Target namespaces rows are held for ("" for
// ClusterTargets).
func (x *Rows) Namespaces() []string {
	out := make([]string, 0, len(x.byNS))
	for ns := range x.byNS {
		out = append(out, ns)
	}
	return out
}

// each calls f for every row an inventory of cfg may select.
func (x *Rows) each(cfg *busv1.InventoryConfig, f func(*Row)) {
	ns := cfg.Namespace
	if cfg.Kind == busv1.KindClusterInventory {
		ns = ""
	}
	for _, r := range x.byNS[ns] {
		f(r)
	}
}

// AttributeTypes returns the declared attribute types of the snapshot of
// inv: the types of the Targets whose rows inv may select, merged
// (busv1.MergeAttributeTypes).
func (x *Rows) AttributeTypes(inv *busv1.InventoryConfig) busv1.AttributeTypes {
	var sets []busv1.AttributeTypes
	for key, t := range x.targets {
		if t.types != nil && Affects(inv, key) {
			sets = append(sets, t.types)
		}
	}
	return busv1.MergeAttributeTypes(sets...)
}

func namespaceOf(key busv1.RowKey) string {
	if key.ClusterTarget {
		return ""
	}
	return key.TargetNamespace
}

// Affects reports whether a change of the row with this key may change the
// snapshot of inv.
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

// member reports whether r belongs to inv's snapshot before dedupe.
func member(inv *busv1.InventoryConfig, r *Row) bool {
	row := busv1.Row{TargetNamespace: r.Key.TargetNamespace, TargetName: r.TargetName, Namespace: r.Namespace}
	return snapshot.Member(inv, &row)
}

// ParseChunk returns the rows of a stored chunk (canonical rows joined by
// ","), keeping each row's bytes verbatim.
func ParseChunk(b []byte) ([]*Row, error) {
	list := make([]byte, 0, len(b)+2)
	list = append(append(append(list, '['), b...), ']')
	var raws []json.RawMessage
	if err := json.Unmarshal(list, &raws); err != nil {
		return nil, fmt.Errorf("decode chunk: %w", err)
	}
	out := make([]*Row, len(raws))
	for i, raw := range raws {
		r, err := FromRaw(raw)
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}
