package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// The emulator's one account and its key, which are public: every Azure
// Storage emulator and SDK knows them.
const (
	AzuriteAccount = "devstoreaccount1"
	AzuriteKey     = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
)

// azuriteMain is the blob service's entry point in the npm package `make
// tools` installs (deploy/tools/build.sh), run by the machine's node.
const azuriteMain = "node/azurite/node_modules/azurite/dist/src/blob/main.js"

// Azurite is an Azure Blob Storage emulator (the azurite npm package, blob
// service only) over plain HTTP, storing blobs in a folder. It checks
// shared-key signatures and SAS tokens of its one account (AzuriteAccount,
// AzuriteKey) and enforces If-Match and If-None-Match (412).
type Azurite struct {
	// URL is the emulator's base URL, http://127.0.0.1:<port>; the
	// account's blob service is URL/devstoreaccount1 (path-style).
	URL string
	// Dir holds the blobs and metadata (under data/) and the log.
	Dir string
	// LogFile is the emulator's output.
	LogFile string

	srv *toolServer
}

// AccountURL is the blob service URL of the emulator's account.
func (a *Azurite) AccountURL() string { return a.URL + "/" + AzuriteAccount }

// StartAzurite starts an Azurite blob service on a temporary folder; the
// test's cleanup stops it.
func StartAzurite(t testing.TB) *Azurite {
	t.Helper()
	a, err := NewAzurite(t.TempDir())
	if err != nil {
		t.Fatalf("start Azurite: %v", err)
	}
	stopOnCleanup(t, "azurite", a.Stop, a.srv.tail)
	return a
}

// NewAzurite starts an Azurite blob service storing in dir (a new temporary
// folder that Stop removes when dir is empty); the caller owns Stop.
func NewAzurite(dir string) (*Azurite, error) {
	main, err := Tool(azuriteMain)
	if err != nil {
		return nil, err
	}
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("azurite runs on node, which is missing (install Debian's nodejs; .ci/run does): %w", err)
	}
	dir, owned, err := peerDir(dir, "kollect-azurite-")
	if err != nil {
		return nil, fmt.Errorf("make azurite folder: %w", err)
	}
	s := &toolServer{dir: dir, logFile: filepath.Join(dir, "azurite.log"), ownDir: owned}
	if err := startAzurite(s, node, main); err != nil {
		s.removeDir()
		return nil, err
	}
	a := &Azurite{URL: fmt.Sprintf("http://127.0.0.1:%d", s.port), Dir: dir, LogFile: s.logFile, srv: s}
	return a, nil
}

// startAzurite runs the blob service on a free port: --loose accepts
// headers it does not implement, --skipApiVersionCheck the SDK's newer
// service version.
func startAzurite(s *toolServer, node, main string) error {
	data := filepath.Join(s.dir, "data")
	if err := os.MkdirAll(data, 0o755); err != nil {
		return err
	}
	port, err := FreePort()
	if err != nil {
		return err
	}
	cmd := exec.Command(node, main, "--blobHost", "127.0.0.1", "--blobPort", strconv.Itoa(port),
		"--location", data, "--skipApiVersionCheck", "--loose", "--silent")
	cmd.Dir = data // Azurite writes its debug and extent files relative to the working folder too
	p, err := startProcess("azurite", s.logFile, 0, cmd)
	if err != nil {
		return err
	}
	// Any HTTP answer (403 to an unsigned listing) means it is serving.
	if err := waitReady(p, httpReady(fmt.Sprintf("http://127.0.0.1:%d/%s?comp=list", port, AzuriteAccount))); err != nil {
		return err
	}
	s.port, s.proc = port, p
	return nil
}

// Stop stops the emulator and removes the folder when NewAzurite made it.
func (a *Azurite) Stop() error { return a.srv.stop() }
