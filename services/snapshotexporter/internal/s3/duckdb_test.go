package s3

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/pkg/testenv"
)

// duckDB is the independent Parquet reader of the docs tests: the machine's
// node running the npm package @duckdb/node-api that deploy/tools/build.sh
// installs into the tools folder.
type duckDB struct {
	node, module string
}

// duckDBModule is the package's folder under the tools folder.
const duckDBModule = "node/duckdb/node_modules/@duckdb/node-api"

// findDuckDB returns the reader. When it is missing the test fails in CI
// (CI set, as CI systems do) and is skipped elsewhere, saying how to
// install it.
func findDuckDB(t *testing.T) duckDB {
	t.Helper()
	node, nodeErr := exec.LookPath("node")
	dir, err := testenv.ToolsDir()
	module := filepath.Join(dir, duckDBModule)
	if err == nil {
		_, err = os.Stat(filepath.Join(module, "package.json"))
	}
	if nodeErr == nil && err == nil {
		return duckDB{node: node, module: module}
	}
	var missing []string
	if nodeErr != nil {
		missing = append(missing, "node: "+nodeErr.Error())
	}
	if err != nil {
		missing = append(missing, "@duckdb/node-api: "+err.Error())
	}
	msg := fmt.Sprintf("the DuckDB reader is missing (%s): `make tools` installs it with the machine's node and npm "+
		"(Debian packages nodejs and npm)", strings.Join(missing, "; "))
	if os.Getenv("CI") != "" {
		t.Fatal(msg)
	}
	t.Skip(msg + "; in CI this fails")
	return duckDB{}
}

// queryResult is one statement's result.
type queryResult struct {
	Columns []string `json:"columns"`
	Types   []string `json:"types"`
	Rows    [][]any  `json:"rows"`
}

// run runs statements in one in-memory DuckDB database, in order.
func (d duckDB) run(t *testing.T, statements []string) []queryResult {
	t.Helper()
	in, err := json.Marshal(statements)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, d.node, filepath.Join("testdata", "duckdb.js"), d.module)
	cmd.Stdin = bytes.NewReader(in)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Run(); err != nil {
		t.Fatalf("duckdb: %v\n%s", err, stderr.String())
	}
	var out []queryResult
	if err := json.Unmarshal(stdout.Bytes(), &out); err != nil {
		t.Fatalf("decode the results of duckdb: %v\n%s", err, stdout.String())
	}
	if len(out) != len(statements) {
		t.Fatalf("duckdb returned %d results for %d statements", len(out), len(statements))
	}
	return out
}
