package testenv

import (
	"fmt"
	"strconv"
	"testing"
)

// Mongo is a MongoDB wire-protocol server: FerretDB on SQLite, built by `make
// tools` from deploy/tools/ferretdb. It needs no credentials.
type Mongo struct {
	// URI is the connection string, mongodb://127.0.0.1:<port>/.
	URI string
	// Dir holds the SQLite databases (under data/) and the log.
	Dir string
	// LogFile is the server's output.
	LogFile string

	srv *toolServer
}

// StartMongo starts FerretDB on a temporary folder; the test's cleanup stops
// it.
func StartMongo(t testing.TB) *Mongo {
	t.Helper()
	m, err := NewMongo(t.TempDir())
	if err != nil {
		t.Fatalf("start FerretDB: %v", err)
	}
	stopOnCleanup(t, "ferretdb", m.Stop, m.srv.tail)
	return m
}

// NewMongo starts FerretDB storing in dir (a new temporary folder that Stop
// removes when dir is empty); the caller owns Stop.
func NewMongo(dir string) (*Mongo, error) {
	srv, err := startTool(dir, toolSpec{
		tool:    "bin/ferretdb",
		name:    "ferretdb",
		pattern: "kollect-mongo-",
		args: func(port int, data string) []string {
			return []string{"--listen-addr", "127.0.0.1:" + strconv.Itoa(port), "--sqlite-dir", data}
		},
		ready: func(port int) func() error { return tcpReady("127.0.0.1:" + strconv.Itoa(port)) },
	})
	if err != nil {
		return nil, err
	}
	return &Mongo{URI: fmt.Sprintf("mongodb://127.0.0.1:%d/", srv.port), Dir: srv.dir, LogFile: srv.logFile, srv: srv}, nil
}

// Stop stops FerretDB and removes the folder when NewMongo made it.
func (m *Mongo) Stop() error { return m.srv.stop() }
