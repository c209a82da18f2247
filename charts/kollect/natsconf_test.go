package chart_test

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats-server/v2/server"

	busv1 "kollect.dev/kollect/api/bus/v1"
)

// parseNATSConf parses the rendered nats.conf with nats-server's own parser, with the pod's
// environment (server name and the services' passwords) set.
func parseNATSConf(t *testing.T, sets ...string) *server.Options {
	t.Helper()
	cm := find(t, decode(t, render(t, "", sets...)), "ConfigMap", "kollect-nats")
	conf := cm.Object["data"].(map[string]any)["nats.conf"].(string)
	path := filepath.Join(t.TempDir(), "nats.conf")
	if err := os.WriteFile(path, []byte(conf), 0o600); err != nil {
		t.Fatal(err)
	}
	t.Setenv("POD_NAME", "kollect-nats-0")
	for s := range catalogPermissions() {
		t.Setenv(strings.ToUpper(strings.ReplaceAll(string(s), "-", "_"))+"_PASSWORD", "pw-"+string(s))
	}
	opts, err := server.ProcessConfigFile(path)
	if err != nil {
		t.Fatalf("nats-server refuses the rendered nats.conf: %v\n%s", err, conf)
	}
	return opts
}

func TestNATSConfigGivesEachServiceItsBusPermissions(t *testing.T) {
	tests := []struct {
		name      string
		sets      []string
		provision bool
	}{
		{name: "control provisions the bus (default)", sets: []string{"query.enabled=true"}, provision: true},
		{name: "an administrator provisions the bus", sets: []string{"query.enabled=true", "control.provisionBus=false"}},
	}
	t.Run("without the query service there is no query user (an existing users Secret lacks its key)", func(t *testing.T) {
		for _, u := range parseNATSConf(t, "query.enabled=false").Users {
			if u.Username == string(busv1.ServiceQuery) {
				t.Errorf("nats.conf has the query user with query.enabled=false")
			}
		}
	})
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := parseNATSConf(t, tt.sets...)
			want := catalogPermissions()
			if len(opts.Users) != len(want) {
				t.Fatalf("nats.conf has %d users, want one per service (%d)", len(opts.Users), len(want))
			}
			for _, u := range opts.Users {
				p, ok := want[busv1.Service(u.Username)]
				if !ok {
					t.Errorf("user %q is not a Kollect service", u.Username)
					continue
				}
				if u.Password != "pw-"+u.Username {
					t.Errorf("user %s: password not read from %s_PASSWORD", u.Username, strings.ToUpper(u.Username))
				}
				pub := slices.Clone(p.Publish)
				if tt.provision && u.Username == string(busv1.ServiceControl) {
					pub = append(pub, "$JS.API.>")
				}
				if diff := cmp.Diff(pub, u.Permissions.Publish.Allow); diff != "" {
					t.Errorf("user %s publish permissions (-bus +nats.conf):\n%s", u.Username, diff)
				}
				if diff := cmp.Diff(p.Subscribe, u.Permissions.Subscribe.Allow); diff != "" {
					t.Errorf("user %s subscribe permissions (-bus +nats.conf):\n%s", u.Username, diff)
				}
				if got := u.Permissions.Response != nil; got != p.AllowResponses {
					t.Errorf("user %s allow_responses = %v, want %v", u.Username, got, p.AllowResponses)
				}
			}
		})
	}
	t.Run("a three-node NATS is one JetStream cluster", func(t *testing.T) {
		opts := parseNATSConf(t)
		if len(opts.Routes) != 3 || opts.Cluster.Name == "" || !opts.JetStream {
			t.Errorf("routes %v, cluster %q, JetStream %v: want three routes, a named cluster and JetStream", opts.Routes, opts.Cluster.Name, opts.JetStream)
		}
		if opts.MaxPayload < 1<<20 {
			t.Errorf("max_payload %d is below the bus's 1 MiB messages", opts.MaxPayload)
		}
	})
}
