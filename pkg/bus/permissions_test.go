package bus

import (
	"context"
	"errors"
	"net"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/testenv"
)

// serviceConn is one service connected as its own NATS user.
type serviceConn struct {
	nc         *nats.Conn
	js         jetstream.JetStream
	violations chan error
}

// securedNATS reloads a test server with one user per service holding the
// catalogue's permissions, plus an unrestricted admin that provisions.
func securedNATS(t *testing.T) func(busv1.Service) serviceConn {
	t.Helper()
	n := testenv.StartNATS(t)
	users := []*server.User{{Username: "admin", Password: "admin"}}
	for _, p := range Catalogue().Permissions {
		perm := &server.Permissions{
			Publish:   &server.SubjectPermission{Allow: p.Publish},
			Subscribe: &server.SubjectPermission{Allow: p.Subscribe},
		}
		if p.AllowResponses {
			perm.Response = &server.ResponsePermission{MaxMsgs: 1, Expires: time.Minute}
		}
		users = append(users, &server.User{Username: string(p.Service), Password: "pw", Permissions: perm})
	}
	n.Conn.Close() // it has no user and would retry noisily
	err := n.Server.ReloadOptions(&server.Options{
		Host: "127.0.0.1", Port: n.Server.Addr().(*net.TCPAddr).Port, JetStream: true,
		JetStreamMaxStore: testenv.MaxStore, StoreDir: n.StoreDir, NoSigs: true, NoLog: true, Users: users,
	})
	if err != nil {
		t.Fatalf("reload NATS with users: %v", err)
	}
	ctx := testContext(t)
	connect := func(user, pw string, s busv1.Service) serviceConn {
		c := serviceConn{violations: make(chan error, 64)}
		var err error
		c.nc, c.js, err = Connect(n.URL, s, nats.UserInfo(user, pw), nats.RetryOnFailedConnect(false),
			nats.ErrorHandler(func(_ *nats.Conn, _ *nats.Subscription, err error) {
				if errors.Is(err, nats.ErrPermissionViolation) {
					select {
					case c.violations <- err:
					default:
					}
				}
			}))
		if err != nil {
			t.Fatalf("connect as %s: %v", user, err)
		}
		t.Cleanup(c.nc.Close)
		return c
	}
	admin := connect("admin", "admin", busv1.ServiceControl)
	if err := Provision(ctx, admin.js, DefaultOptions()); err != nil {
		t.Fatalf("Provision as admin: %v", err)
	}
	return func(s busv1.Service) serviceConn { return connect(string(s), "pw", s) }
}

// noViolation fails t if the server reported a permission violation.
func (c serviceConn) noViolation(t *testing.T) {
	t.Helper()
	if err := c.nc.Flush(); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c.violations:
		t.Errorf("permission violation: %v", err)
	default:
	}
}

// denied publishes to subject and waits for the server to refuse it.
func (c serviceConn) denied(t *testing.T, subject string) {
	t.Helper()
	if err := c.nc.Publish(subject, []byte(`{}`)); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-c.violations:
		if !strings.Contains(err.Error(), subject) {
			t.Errorf("violation %v does not name %s", err, subject)
		}
	case <-time.After(10 * time.Second):
		t.Errorf("publishing to %s was allowed", subject)
	}
}

func must[T any](t *testing.T, what string) func(T, error) T {
	return func(v T, err error) T {
		t.Helper()
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return v
	}
}

func watchOnce(ctx context.Context, t *testing.T, js jetstream.JetStream, bucket, filter string) {
	t.Helper()
	kv := must[jetstream.KeyValue](t, "bind "+bucket)(js.KeyValue(ctx, bucket))
	watchedKeys(ctx, t, kv, filter)
}
