package dev

import (
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/nats-io/nats.go"

	"kollect.dev/kollect/services/cli/internal/devbus"
)

// TestTheEmbeddedBusAdmitsOnlyThisRunsCredentials is F12 of SECURITY-3:
// any account of the host reaches 127.0.0.1, so the embedded bus admits
// only the user whose password is drawn for this run, written 0600 where
// the kollect CLI finds it; it listens on loopback only.
func TestTheEmbeddedBusAdmitsOnlyThisRunsCredentials(t *testing.T) {
	srv, creds, err := startNATS(t.TempDir(), -1)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { srv.Shutdown(); srv.WaitForShutdown() })
	if addr, ok := srv.Addr().(*net.TCPAddr); !ok || !addr.IP.IsLoopback() {
		t.Errorf("the embedded bus listens on %v, want loopback only", srv.Addr())
	}
	if strings.Contains(creds.URL, creds.Password) || creds.Password == "" {
		t.Fatalf("credentials %q: want a password, and a URL without it", creds.URL)
	}
	connect := func(opts ...nats.Option) error {
		nc, err := nats.Connect(creds.URL, opts...)
		if err == nil {
			nc.Close()
		}
		return err
	}
	t.Run("another local account without the password is refused", func(t *testing.T) {
		for name, opts := range map[string][]nats.Option{
			"no credentials":        nil,
			"the user, no password": {nats.UserInfo(creds.User, "")},
			"a guessed password":    {nats.UserInfo(creds.User, "kollect")},
		} {
			if err := connect(opts...); err == nil || !strings.Contains(strings.ToLower(err.Error()), "authorization") {
				t.Errorf("%s: connect returned %v, want an authorization violation", name, err)
			}
		}
	})
	t.Run("the CLI finds the credentials in a file only its owner reads", func(t *testing.T) {
		path := filepath.Join(t.TempDir(), "kollect", "dev-bus.json")
		t.Setenv(devbus.EnvFile, path)
		if err := devbus.Write(path, creds); err != nil {
			t.Fatal(err)
		}
		st, err := os.Stat(path)
		if err != nil || st.Mode().Perm() != 0o600 {
			t.Fatalf("the credentials file: %v, mode %v; want mode 0600", err, st.Mode().Perm())
		}
		opts, err := devbus.Options(creds.URL)
		if err != nil || len(opts) == 0 {
			t.Fatalf("devbus.Options(%s) = %d options, %v; want the file's credentials", creds.URL, len(opts), err)
		}
		if err := connect(opts...); err != nil {
			t.Fatalf("connect with the file's credentials: %v", err)
		}
		if other, _ := devbus.Options("nats://127.0.0.1:1"); len(other) != 0 {
			t.Error("the credentials are offered to another bus")
		}
		devbus.Remove(path, creds)
		if _, err := os.Stat(path); !os.IsNotExist(err) {
			t.Errorf("the credentials file outlives the run: %v", err)
		}
	})
	t.Run("every run draws another password", func(t *testing.T) {
		if a, b := devbus.New(""), devbus.New(""); a.Password == b.Password || len(a.Password) < 22 {
			t.Errorf("passwords %q and %q: want distinct, at least 128 bits", a.Password, b.Password)
		}
	})
}
