package verify

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"

	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// document is what an exported file holds: its rows and, for an envelope,
// the checksums it names.
type document struct {
	rows     []busv1.Row
	envelope bool
	checksum string
	previous string
	revision uint64
}

// parseDocument reads an exported snapshot file: a JSON or YAML envelope, a
// JSON or YAML list of rows, or NDJSON (rows, or an envelope without items
// then rows, as the S3 sink writes).
func parseDocument(b []byte) (document, error) {
	var d document
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && trimmed[0] == '{' && bytes.Contains(trimmed, []byte("\n{")) {
		return parseNDJSON(trimmed)
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return d, err
	}
	if bytes.HasPrefix(bytes.TrimSpace(j), []byte("{")) {
		var env busv1.Envelope
		if err := json.Unmarshal(j, &env); err != nil {
			return d, err
		}
		if env.Items == nil {
			return d, errors.New("an object must be an envelope with items")
		}
		return document{rows: env.Items, envelope: true, checksum: env.Checksum, previous: env.PreviousChecksum,
			revision: env.Revision}, nil
	}
	err = json.Unmarshal(j, &d.rows)
	return d, err
}

func parseNDJSON(b []byte) (document, error) {
	var d document
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		line := bytes.TrimSpace(sc.Bytes())
		if len(line) == 0 {
			continue
		}
		if n == 1 && bytes.Contains(line, []byte(`"schemaVersion"`)) {
			var env busv1.Envelope
			if err := json.Unmarshal(line, &env); err != nil {
				return d, fmt.Errorf("decode line 1: %w", err)
			}
			d.envelope, d.checksum, d.previous, d.revision = true, env.Checksum, env.PreviousChecksum, env.Revision
			continue
		}
		var r busv1.Row
		if err := json.Unmarshal(line, &r); err != nil {
			return d, fmt.Errorf("decode line %d: %w", n, err)
		}
		d.rows = append(d.rows, r)
	}
	return d, sc.Err()
}
