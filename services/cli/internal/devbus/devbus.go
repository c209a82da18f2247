package devbus

import (
	"crypto/rand"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats.go"
)

// EnvFile names the credentials file instead of the default path, for
// `kollect dev` and the CLI alike (tests, several dev sessions).
const EnvFile = "KOLLECT_DEV_BUS_FILE"

// User is the embedded bus's only user.
const User = "kollect-dev"

// Credentials are what a client needs to reach the embedded bus.
type Credentials struct {
	// URL is the bus address, nats://127.0.0.1:<port>, without credentials.
	URL string `json:"url"`
	// User and Password authenticate every client; the password is drawn
	// at random for each run.
	User     string `json:"user"`
	Password string `json:"password"`
}

// New returns credentials with a fresh random password (128 bits and
// more) for the bus at url.
func New(url string) Credentials {
	return Credentials{URL: url, User: User, Password: rand.Text()}
}

// Path returns $KOLLECT_DEV_BUS_FILE, else kollect/dev-bus.json in the
// user's configuration directory.
func Path() (string, error) {
	if p := os.Getenv(EnvFile); p != "" {
		return p, nil
	}
	dir, err := os.UserConfigDir()
	if err != nil {
		return "", fmt.Errorf("find the dev bus credentials file: %w", err)
	}
	return filepath.Join(dir, "kollect", "dev-bus.json"), nil
}

// Write stores c at path with mode 0600 (its folder 0700 when created),
// replacing any earlier file whole: another account of the host can read
// neither.
func Write(path string, c Credentials) error {
	data, err := json.Marshal(c) //nolint:gosec // G117: this file exists to hold the password, mode 0600 for its owner only
	if err != nil {
		return err
	}
	if err := writePrivate(path, data); err != nil {
		return fmt.Errorf("write the dev bus credentials: %w", err)
	}
	return nil
}

// writePrivate replaces the file at path whole with data, mode 0600, its
// folder 0700 when created.
func writePrivate(path string, data []byte) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(path), ".dev-*")
	if err != nil {
		return err
	}
	defer func() { _ = os.Remove(tmp.Name()) }()
	err = tmp.Chmod(0o600)
	if err == nil {
		_, err = tmp.Write(data)
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), path)
	}
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	return nil
}

// Remove deletes the file at path if it still holds c (a later run may
// have replaced it).
func Remove(path string, c Credentials) {
	if got, err := read(path); err == nil && got == c {
		_ = os.Remove(path)
	}
}

// Options returns the nats.Options that authenticate to the bus at
// natsURL: the user and password of the credentials file when it names the
// same address, none otherwise (another bus brings its own credentials).
func Options(natsURL string) ([]nats.Option, error) {
	path, err := Path()
	if err != nil {
		return nil, nil //nolint:nilerr // no configuration folder: no dev bus to find
	}
	c, err := read(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if hostPort(c.URL) == "" || hostPort(c.URL) != hostPort(natsURL) {
		return nil, nil
	}
	return []nats.Option{nats.UserInfo(c.User, c.Password)}, nil
}

func read(path string) (Credentials, error) {
	var c Credentials
	data, err := os.ReadFile(path) //nolint:gosec // G304: the user's own credentials file
	if err != nil {
		return c, err
	}
	if err := json.Unmarshal(data, &c); err != nil {
		return c, fmt.Errorf("read the dev bus credentials %s: %w", path, err)
	}
	return c, nil
}

// hostPort returns the host:port of a single nats:// URL, "" for a list or
// an unparsable one.
func hostPort(raw string) string {
	if strings.Contains(raw, ",") {
		return ""
	}
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		return ""
	}
	if u.Hostname() == "localhost" {
		return "127.0.0.1:" + u.Port()
	}
	return u.Host
}
