package cli

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"os"

	"github.com/spf13/cobra"
	"sigs.k8s.io/yaml"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/snapshot"
)

// newChecksumCommand returns `kollect checksum FILE`: the checksum of an
// exported snapshot, recomputed offline from its rows (docs/contract.md).
func newChecksumCommand(s Streams) *cobra.Command {
	version := snapshot.ChecksumVersion
	cmd := &cobra.Command{
		Use:   "checksum FILE",
		Short: "Compute the checksum of an exported snapshot (envelope, item list or NDJSON rows)",
		Long: "Reads an exported snapshot (a JSON or YAML envelope, a JSON or YAML list of rows, or NDJSON rows,\n" +
			"\"-\" for standard input), sorts its rows canonically and prints their checksum: version 2 by\n" +
			"default, version 1 (the checksum of releases before chunked snapshots) with --version 1.",
		Example: "  kollect checksum inventory/team-a/apps.json\n  kollect checksum --version 1 apps.yaml",
		Args:    cobra.ExactArgs(1),
		RunE: func(_ *cobra.Command, args []string) error {
			rows, err := readRows(args[0])
			if err != nil {
				return err
			}
			snapshot.Sort(rows)
			var sum string
			switch version {
			case 1:
				sum, err = snapshot.ChecksumV1(rows)
			case 2:
				sum, err = snapshot.Checksum(rows)
			default:
				return fmt.Errorf("--version %d: must be 1 or 2", version)
			}
			if err != nil {
				return err
			}
			_, err = fmt.Fprintln(s.Out, sum)
			return err
		},
	}
	cmd.Flags().IntVar(&version, "version", version, "checksum version: 2 (current) or 1")
	return cmd
}

// readRows reads the rows of an exported snapshot file.
func readRows(path string) ([]busv1.Row, error) {
	var b []byte
	var err error
	if path == "-" {
		b, err = io.ReadAll(os.Stdin)
	} else {
		b, err = os.ReadFile(path) //nolint:gosec // G304: the file the user named on the command line
	}
	if err != nil {
		return nil, fmt.Errorf("read %s: %w", path, err)
	}
	trimmed := bytes.TrimSpace(b)
	if len(trimmed) > 0 && trimmed[0] == '{' && bytes.Contains(trimmed, []byte("\n{")) {
		return ndjson(trimmed)
	}
	j, err := yaml.YAMLToJSON(b)
	if err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	var env struct {
		Items *[]busv1.Row `json:"items"`
	}
	if bytes.HasPrefix(bytes.TrimSpace(j), []byte("{")) {
		if err := json.Unmarshal(j, &env); err != nil || env.Items == nil {
			return nil, fmt.Errorf("decode %s: an object must be an envelope with items", path)
		}
		return *env.Items, nil
	}
	var rows []busv1.Row
	if err := json.Unmarshal(j, &rows); err != nil {
		return nil, fmt.Errorf("decode %s: %w", path, err)
	}
	return rows, nil
}

func ndjson(b []byte) ([]busv1.Row, error) {
	var rows []busv1.Row
	sc := bufio.NewScanner(bytes.NewReader(b))
	sc.Buffer(make([]byte, 0, 64<<10), 64<<20)
	for n := 1; sc.Scan(); n++ {
		if len(bytes.TrimSpace(sc.Bytes())) == 0 {
			continue
		}
		var r busv1.Row
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			return nil, fmt.Errorf("decode line %d: %w", n, err)
		}
		rows = append(rows, r)
	}
	return rows, sc.Err()
}
