package testenv

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"testing"
)

// GCS is a Google Cloud Storage emulator (fake-gcs-server, built by `make
// tools`) over plain HTTP, storing objects in a folder. It needs no
// credentials and enforces generation preconditions (412).
type GCS struct {
	// Host is 127.0.0.1:<port>, the value of STORAGE_EMULATOR_HOST (no scheme)
	// that makes cloud.google.com/go/storage talk to the emulator.
	Host string
	// URL is the emulator's base URL, http://<Host>.
	URL string
	// Dir holds the objects (under data/) and the log.
	Dir string
	// LogFile is the emulator's output.
	LogFile string

	srv *toolServer
}

// StartGCS starts a GCS emulator on a temporary folder; the test's cleanup
// stops it.
func StartGCS(t testing.TB) *GCS {
	t.Helper()
	g, err := NewGCS(t.TempDir())
	if err != nil {
		t.Fatalf("start GCS emulator: %v", err)
	}
	stopOnCleanup(t, "fake-gcs-server", g.Stop, g.srv.tail)
	return g
}

// NewGCS starts a GCS emulator storing in dir (a new temporary folder that
// Stop removes when dir is empty); the caller owns Stop.
func NewGCS(dir string) (*GCS, error) {
	srv, err := startTool(dir, toolSpec{
		tool:    "bin/fake-gcs-server",
		name:    "fake-gcs-server",
		pattern: "kollect-gcs-",
		args: func(port int, data string) []string {
			host := "127.0.0.1:" + strconv.Itoa(port)
			return []string{"-scheme", "http", "-host", "127.0.0.1", "-port", strconv.Itoa(port),
				"-backend", "filesystem", "-filesystem-root", data,
				"-public-host", host, "-external-url", "http://" + host, "-log-level", "warn"}
		},
		ready: func(port int) func() error {
			return httpReady(fmt.Sprintf("http://127.0.0.1:%d/storage/v1/b", port))
		},
	})
	if err != nil {
		return nil, err
	}
	g := &GCS{Host: fmt.Sprintf("127.0.0.1:%d", srv.port), Dir: srv.dir, LogFile: srv.logFile, srv: srv}
	g.URL = "http://" + g.Host
	return g, nil
}

// Stop stops the emulator and removes the folder when NewGCS made it.
func (g *GCS) Stop() error { return g.srv.stop() }

// CreateBucket creates the bucket name through the JSON API.
func (g *GCS) CreateBucket(t testing.TB, name string) {
	t.Helper()
	body, _ := json.Marshal(map[string]string{"name": name})
	u := g.URL + "/storage/v1/b?project=" + url.QueryEscape("kollect-test")
	req, err := http.NewRequestWithContext(t.Context(), http.MethodPost, u, bytes.NewReader(body))
	if err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("create bucket %s: %v", name, err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		msg, _ := io.ReadAll(resp.Body)
		t.Fatalf("create bucket %s: %s\n%s", name, resp.Status, msg)
	}
}
