package devbus

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// EnvQueryFile names the dev query file instead of the default path.
const EnvQueryFile = "KOLLECT_DEV_QUERY_FILE"

// Query is where `kollect dev` serves the history API (query.kollect.dev)
// on this machine, for the kollect CLI: the API server of a cluster cannot
// reach a process on a laptop, so the CLI reads history from it directly
// when the cluster serves no query API.
type Query struct {
	// URL is https://127.0.0.1:<port>.
	URL string `json:"url"`
	// CA is the PEM certificate bundle the server's certificate verifies
	// against, generated for each run: the CLI sends its Kubernetes
	// credentials only to the server holding that certificate's key.
	CA string `json:"ca"`
	// APIServer is the Kubernetes API server (its URL) whose callers the
	// dev query service authenticates and authorizes: the CLI uses it only
	// for a kubeconfig context of that server.
	APIServer string `json:"apiServer"`
}

// QueryPath returns $KOLLECT_DEV_QUERY_FILE, else kollect/dev-query.json
// in the user's configuration directory.
func QueryPath() (string, error) {
	if p := os.Getenv(EnvQueryFile); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the dev query file: %w", err)
	}
	return filepath.Join(dir, "kollect", "dev-query.json"), nil
}

// WriteQuery stores q at path (mode 0600), replacing an earlier file.
func WriteQuery(path string, q Query) error {
	data, err := json.Marshal(q)
	if err != nil {
		return err
	}
	if err := writePrivate(path, data); err != nil {
		return fmt.Errorf("write the dev query file: %w", err)
	}
	return nil
}

// ReadQuery returns the dev query service of apiServer, false when no
// kollect dev serves one for that API server.
func ReadQuery(apiServer string) (Query, bool, error) {
	var q Query
	path, err := QueryPath()
	if err != nil {
		return q, false, nil //nolint:nilerr // no configuration folder: no dev query service to find
	}
	data, err := os.ReadFile(path) //nolint:gosec // G304: the user's own file
	if errors.Is(err, fs.ErrNotExist) {
		return q, false, nil
	}
	if err != nil {
		return q, false, err
	}
	if err := json.Unmarshal(data, &q); err != nil {
		return q, false, fmt.Errorf("read the dev query file %s: %w", path, err)
	}
	return q, q.URL != "" && q.APIServer == apiServer, nil
}

// RemoveQuery deletes the file at path if it still holds q.
func RemoveQuery(path string, q Query) {
	data, err := os.ReadFile(path) //nolint:gosec // G304: the user's own file
	if err != nil {
		return
	}
	var got Query
	if json.Unmarshal(data, &got) == nil && got == q {
		_ = os.Remove(path)
	}
}
