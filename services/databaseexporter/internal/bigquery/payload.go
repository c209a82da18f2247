package bigquery

import (
	"bytes"
	"encoding/json"
	"fmt"

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
// line per row, in the envelope's order.
func payload(rows []busv1.Row) ([]byte, error) {
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
	}
	return buf.Bytes(), nil
}
