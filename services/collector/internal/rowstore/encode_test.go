package rowstore

import (
	"bytes"
	"encoding/json"
	"reflect"
	"testing"
	"time"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
)

// canonical is the aggregator's index.Canonical: encoding/json without HTML
// escaping and without the trailing newline, as snapshot.Checksum hashes a
// row.
func canonical(t *testing.T, row *busv1.Row) []byte {
	t.Helper()
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(row); err != nil {
		t.Fatal(err)
	}
	return bytes.TrimSuffix(buf.Bytes(), []byte{'\n'})
}

// htmlRow has attributes encoding/json escapes by default and nested maps
// whose keys it sorts.
func htmlRow() busv1.Row {
	r := row("web", "u1", "registry.example.com/a<b>&c:1")
	r.Attributes["link"] = `<a href="https://x.example.com/?a=1&b=2">runbook</a>`
	r.Attributes["nested"] = map[string]any{"z": map[string]any{"y": "<&>", "b": []any{1, "x&y"}}, "a": 2.5}
	return r
}

func TestStoredRowBytesAreCanonical(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	s := open(ctx, t, n, kv)
	r := htmlRow()
	if _, err := s.Put(ctx, r, 3, nil); err != nil {
		t.Fatal(err)
	}
	flush(ctx, t, s)
	e, err := kv.Get(ctx, bus.RowKey(r.Key()))
	if err != nil {
		t.Fatal(err)
	}
	var stored struct {
		Row json.RawMessage `json:"row"`
	}
	if err := json.Unmarshal(e.Value(), &stored); err != nil {
		t.Fatal(err)
	}
	t.Run("the row field holds the canonical row bytes", func(t *testing.T) {
		if want := canonical(t, &r); !bytes.Equal(stored.Row, want) {
			t.Errorf("row bytes\n got %s\nwant %s", stored.Row, want)
		}
	})
	t.Run("the value is the encoded RowEntry without a trailing newline", func(t *testing.T) {
		var entry busv1.RowEntry
		if err := json.Unmarshal(e.Value(), &entry); err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(entry); err != nil {
			t.Fatal(err)
		}
		if got := e.Value(); !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte{'\n'})) {
			t.Errorf("value\n got %s\nwant %s", got, want.Bytes())
		}
	})
}

func TestEncodeEntryMatchesRowEntry(t *testing.T) {
	r := htmlRow()
	at := time.Date(2026, 1, 2, 3, 4, 5, 6, time.UTC)
	for _, types := range []busv1.AttributeTypes{nil, {"replicas": "int", "image": "string", "x": "any"}} {
		var typesJSON []byte
		if types != nil {
			var err error
			if typesJSON, err = json.Marshal(types); err != nil {
				t.Fatal(err)
			}
		}
		buf := new(bytes.Buffer)
		raw, h, err := encodeRow(buf, &r, typesJSON)
		if err != nil {
			t.Fatal(err)
		}
		if want := canonical(t, &r); !bytes.Equal(raw, want) {
			t.Errorf("row\n got %s\nwant %s", raw, want)
		}
		got, err := encodeEntry(buf, 7, at, typesJSON)
		if err != nil {
			t.Fatal(err)
		}
		var want bytes.Buffer
		enc := json.NewEncoder(&want)
		enc.SetEscapeHTML(false)
		if err := enc.Encode(busv1.RowEntry{Row: r, TargetGeneration: 7, ObservedAt: at, AttributeTypes: types}); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, bytes.TrimSuffix(want.Bytes(), []byte{'\n'})) {
			t.Errorf("entry\n got %s\nwant %s", got, want.Bytes())
		}
		// the hash a restarted collector reads back is the one it wrote
		if stored, err := storedHash(got); err != nil || stored != h {
			t.Errorf("stored hash %x (%v), written %x", stored, err, h)
		}
	}
	// encodeEntry writes RowEntry's four fields: a new one must be added there.
	if n := reflect.TypeFor[busv1.RowEntry]().NumField(); n != 4 {
		t.Errorf("RowEntry has %d fields, encodeEntry writes 4", n)
	}
}

// TestTypesAreContent: a change of the declared types alone writes the row
// again, so the aggregator learns the new types.
func TestTypesAreContent(t *testing.T) {
	buf := new(bytes.Buffer)
	r := htmlRow()
	_, none, _ := encodeRow(buf, &r, nil)
	_, asInt, _ := encodeRow(buf, &r, []byte(`{"replicas":"int"}`))
	_, asFloat, _ := encodeRow(buf, &r, []byte(`{"replicas":"float"}`))
	if none == asInt || asInt == asFloat || none == asFloat {
		t.Errorf("hashes %x %x %x: a change of the types alone is no change", none, asInt, asFloat)
	}
}

func TestOpenRewritesRowsAnOlderCollectorEscaped(t *testing.T) {
	ctx, n, kv := rowsBucket(t)
	r := htmlRow()
	escaped, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1}) // HTML-escaped, as before
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, bus.RowKey(r.Key()), escaped); err != nil {
		t.Fatal(err)
	}
	plain := row("web", "u2", "nginx:1")
	if _, err := kv.Put(ctx, bus.RowKey(plain.Key()), mustEntry(t, plain)); err != nil {
		t.Fatal(err)
	}
	s := open(ctx, t, n, kv)
	if wrote, err := s.Put(ctx, r, 1, nil); err != nil || !wrote {
		t.Errorf("Put of an escaped row = %v, %v; want it written again, canonical", wrote, err)
	}
	if wrote, err := s.Put(ctx, plain, 1, nil); err != nil || wrote {
		t.Errorf("Put of a row already canonical = %v, %v; want no write", wrote, err)
	}
}

// mustEntry is a row's value as json.Marshal writes it: the same bytes as
// canonical for a row without <, > or &.
func mustEntry(t *testing.T, r busv1.Row) []byte {
	t.Helper()
	b, err := json.Marshal(busv1.RowEntry{Row: r, TargetGeneration: 1})
	if err != nil {
		t.Fatal(err)
	}
	return b
}
