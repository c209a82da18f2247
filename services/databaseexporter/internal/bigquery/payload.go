package bigquery

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strconv"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// stagedRow is one line of the load payload: the columns of stagedColumns.
type stagedRow struct {
	TargetNamespace   string `json:"target_namespace"`
	TargetName        string `json:"target_name"`
	SourceUID         string `json:"source_uid"`
	ResourceNamespace string `json:"resource_namespace"`
	ResourceName      string `json:"resource_name"`
	Group             string `json:"group"`
	Version           string `json:"version"`
	Kind              string `json:"kind"`
	// Attributes is the attributes' JSON text, parsed by the INSERT.
	Attributes string `json:"attributes"`
}

// payload is the newline-delimited JSON loaded into the staging table: one
// line per row, in the envelope's order, with the value of each typed
// column that fits it (typed.go; a missing one loads as NULL).
func payload(rows []busv1.Row, cols []typedColumn) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	var attrs bytes.Buffer
	attrEnc := json.NewEncoder(&attrs)
	attrEnc.SetEscapeHTML(false)
	for _, r := range rows {
		attrs.Reset()
		if err := attrEnc.Encode(r.Attributes); err != nil {
			return nil, fmt.Errorf("encode attributes of row %s: %w", r.UID, err)
		}
		line := stagedRow{TargetNamespace: r.TargetNamespace, TargetName: r.TargetName, SourceUID: r.UID,
			ResourceNamespace: r.Namespace, ResourceName: r.Name, Group: r.Group, Version: r.Version, Kind: r.Kind,
			Attributes: string(bytes.TrimSuffix(attrs.Bytes(), []byte("\n")))}
		if err := enc.Encode(line); err != nil {
			return nil, fmt.Errorf("encode row %s: %w", r.UID, err)
		}
		if err := appendTyped(&buf, r, cols); err != nil {
			return nil, err
		}
	}
	return buf.Bytes(), nil
}

// appendTyped adds the typed columns' values of r to the line buf ends
// with: it reopens the object ("}\n") and closes it again.
func appendTyped(buf *bytes.Buffer, r busv1.Row, cols []typedColumn) error {
	opened := false
	var num [32]byte
	for _, c := range cols {
		v, ok := typedValue(r.Attributes[c.Attr], c.Type)
		if !ok {
			continue
		}
		if !opened {
			buf.Truncate(buf.Len() - len("}\n"))
			opened = true
		}
		buf.WriteString(`,"`)
		buf.WriteString(c.Name) // an identifier: nothing to escape
		buf.WriteString(`":`)
		switch v := v.(type) {
		case int64:
			buf.Write(strconv.AppendInt(num[:0], v, 10))
		case float64:
			buf.Write(strconv.AppendFloat(num[:0], v, 'g', -1, 64)) // finite: JSON has no NaN
		case bool:
			buf.Write(strconv.AppendBool(num[:0], v))
		default:
			b, err := json.Marshal(v)
			if err != nil {
				return fmt.Errorf("encode attribute %s of row %s: %w", c.Attr, r.UID, err)
			}
			buf.Write(b)
		}
	}
	if opened {
		buf.WriteString("}\n")
	}
	return nil
}
