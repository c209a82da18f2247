package app_test

import (
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/app"
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
	waitFor(t, "the authenticated connection", nc.IsConnected)
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
