package app_test

import (
	"flag"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv"
)

// A NATS user and password reach a service in its environment, never in
// its arguments: --nats-url holds no password.
func TestTheBusUserAndPasswordComeFromTheEnvironment(t *testing.T) {
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
		Users: []*server.User{{Username: "control", Password: "s3cret"}}})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS is not ready")
	}
	t.Setenv(app.EnvNATSUser, "control")
	t.Setenv(app.EnvNATSPassword, "s3cret")
	o := app.DefaultBusOptions()
	o.URL = s.ClientURL()
	nc, _, err := o.Connect(busv1.ServiceControl)
	if err != nil {
		t.Fatal(err)
	}
	defer nc.Close()
	testenv.EventuallyTrue(t, 5*time.Second, "the authenticated connection", nc.IsConnected)
}

func TestBadBusCredentialsAreRefusedByName(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		env        map[string]string
		o          app.BusOptions
	}{
		{"no URL", "--nats-url: must be set", nil, app.BusOptions{}},
		{"a password without a user", "$KOLLECT_NATS_PASSWORD is set without $KOLLECT_NATS_USER",
			map[string]string{app.EnvNATSPassword: "pw"}, app.DefaultBusOptions()},
		{"a credentials file that does not exist, from the flag", "read NATS credentials file",
			nil, app.BusOptions{URL: app.DefaultNATSURL, Credentials: filepath.Join(t.TempDir(), "none.creds")}},
		{"a credentials file that does not exist, from the environment", "read NATS credentials file",
			map[string]string{app.EnvNATSCredentials: filepath.Join(t.TempDir(), "none.creds")}, app.DefaultBusOptions()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv(app.EnvNATSUser, "")
			t.Setenv(app.EnvNATSPassword, "")
			t.Setenv(app.EnvNATSCredentials, "")
			for k, v := range tc.env {
				t.Setenv(k, v)
			}
			nc, _, err := tc.o.Connect(busv1.ServiceCollector)
			if nc != nil {
				nc.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Connect = %v, want an error with %q", err, tc.want)
			}
		})
	}
}

// startTLSNATS starts an embedded NATS server that requires TLS and, with
// verify, a client certificate signed by the CA of files.
func startTLSNATS(t *testing.T, files testenv.TLSFiles, verify bool) *server.Server {
	t.Helper()
	tc, err := server.GenTLSConfig(&server.TLSConfigOpts{CertFile: files.ServerCert, KeyFile: files.ServerKey,
		CaFile: files.CA, Verify: verify})
	if err != nil {
		t.Fatal(err)
	}
	s, err := server.NewServer(&server.Options{Host: "127.0.0.1", Port: -1, NoLog: true, NoSigs: true,
		TLS: true, TLSConfig: tc, TLSVerify: verify, TLSTimeout: 5})
	if err != nil {
		t.Fatal(err)
	}
	s.Start()
	t.Cleanup(s.Shutdown)
	if !s.ReadyForConnections(10 * time.Second) {
		t.Fatal("NATS is not ready")
	}
	return s
}

func TestTheBusConnectionUsesTLSFromTheFlags(t *testing.T) {
	files := testenv.WriteTLSFiles(t, t.TempDir(), "127.0.0.1")
	other := testenv.WriteTLSFiles(t, t.TempDir(), "127.0.0.1")
	t.Setenv(app.EnvNATSUser, "")
	t.Setenv(app.EnvNATSPassword, "")
	t.Setenv(app.EnvNATSCredentials, "")
	for _, tc := range []struct {
		name    string
		verify  bool
		args    []string
		wantErr string
	}{
		{name: "the server's certificate is verified against --nats-tls-ca", args: []string{"--nats-tls-ca=" + files.CA}},
		{name: "a client certificate reaches a server that verifies clients", verify: true,
			args: []string{"--nats-tls-ca=" + files.CA, "--nats-tls-cert=" + files.ClientCert, "--nats-tls-key=" + files.ClientKey}},
		{name: "a server certificate of another CA is refused", args: []string{"--nats-tls-ca=" + other.CA},
			wantErr: "certificate signed by unknown authority"},
		{name: "without a client certificate a verifying server refuses the connection", verify: true,
			// TLS 1.3 reports the refusal at the handshake or at the first write after it.
			args: []string{"--nats-tls-ca=" + files.CA}, wantErr: "certificate required|closed by remote after TLS handshake"},
		{name: "without --nats-tls-ca the server's private CA is not trusted", wantErr: "certificate signed by unknown authority"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := startTLSNATS(t, files, tc.verify)
			o := app.DefaultBusOptions()
			fs := flag.NewFlagSet("test", flag.ContinueOnError)
			o.BindFlags(fs)
			// nats://, not the server's tls:// URL: the TLS flags alone turn TLS on.
			url := "nats://" + s.Addr().String()
			if err := fs.Parse(append([]string{"--nats-url=" + url}, tc.args...)); err != nil {
				t.Fatal(err)
			}
			nc, _, err := o.Connect(busv1.ServiceControl, nats.MaxReconnects(0), nats.RetryOnFailedConnect(false))
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("Connect over TLS: %v", err)
				}
				defer nc.Close()
				testenv.EventuallyTrue(t, 5*time.Second, "the TLS connection", nc.IsConnected)
				if _, err := nc.TLSConnectionState(); err != nil {
					t.Errorf("the connection is not TLS: %v", err)
				}
				return
			}
			if nc != nil {
				nc.Close()
			}
			if err == nil || !regexp.MustCompile(tc.wantErr).MatchString(err.Error()) {
				t.Fatalf("Connect = %v, want an error matching %q", err, tc.wantErr)
			}
		})
	}
}

func TestBadBusTLSOptionsAreRefusedByName(t *testing.T) {
	dir := t.TempDir()
	files := testenv.WriteTLSFiles(t, dir, "127.0.0.1")
	missing := filepath.Join(dir, "none.pem")
	for _, tc := range []struct {
		name, want string
		tls        app.BusTLS
	}{
		{"a client certificate without its key", "--nats-tls-cert and --nats-tls-key: set both or neither", app.BusTLS{Cert: files.ClientCert}},
		{"a key without its certificate", "--nats-tls-cert and --nats-tls-key: set both or neither", app.BusTLS{Key: files.ClientKey}},
		{"a CA file that does not exist", "--nats-tls-ca:", app.BusTLS{CA: missing}},
		{"a client certificate that does not exist", "--nats-tls-cert:", app.BusTLS{Cert: missing, Key: files.ClientKey}},
		{"a key that does not exist", "--nats-tls-key:", app.BusTLS{Cert: files.ClientCert, Key: missing}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := app.DefaultBusOptions()
			o.TLS = tc.tls
			nc, _, err := o.Connect(busv1.ServiceCollector)
			if nc != nil {
				nc.Close()
			}
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("Connect = %v, want an error with %q", err, tc.want)
			}
		})
	}
}
