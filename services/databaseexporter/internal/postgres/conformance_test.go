package postgres_test

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

func TestConformance(t *testing.T) {
	sinktest.Run(t, sinktest.Factory{
		New: func(t *testing.T) (sink.Sink, sinktest.Reader) {
			dsn := newDatabase(t)
			k := open(t, dsn, spec("kollect", "rows", v1alpha1.ProvisionEnsure))
			return k, newReader(t, dsn, k)
		},
		BadCredentials: func(t *testing.T) sink.Sink {
			k, err := openWith(postgres.Backend{Egress: egress.Policy{AllowPrivate: true}}, passwordRoleDSN(t, "wrong-password"), spec("public", "rows", v1alpha1.ProvisionEnsure))
			if err != nil {
				t.Fatalf("open sink: %v", err)
			}
			return k
		},
	})
}

// TestPasswordRole proves what the conformance case "bad credentials" runs
// against: the role it uses really has password authentication (its right
// password connects, a wrong one is refused with SQLSTATE 28P01), although
// testenv's cluster trusts every other role.
func TestPasswordRole(t *testing.T) {
	ctx := context.Background()
	good, err := pgx.Connect(ctx, passwordRoleDSN(t, rolePassword))
	if err != nil {
		t.Fatalf("the right password is refused: %v", err)
	}
	_ = good.Close(ctx)
	_, err = pgx.Connect(ctx, passwordRoleDSN(t, "wrong-password"))
	var pgErr *pgconn.PgError
	if !errors.As(err, &pgErr) || pgErr.Code != "28P01" {
		t.Fatalf("a wrong password connected or failed otherwise: %v, want SQLSTATE 28P01", err)
	}
}

const (
	passwordRole = "kollect_pw"
	rolePassword = "s3cret'pw"
)

// passwordRoleDSN returns a DSN of the role kollect_pw with password,
// creating the role and a database it owns, and making pg_hba.conf demand
// scram-sha-256 from that role over TCP (testenv's initdb trusts everyone).
func passwordRoleDSN(t testing.TB, password string) string {
	t.Helper()
	dsn := newDatabase(t)
	c := connect(t, dsn)
	var exists bool
	if err := c.QueryRow(context.Background(), `SELECT EXISTS (SELECT 1 FROM pg_roles WHERE rolname = $1)`, passwordRole).Scan(&exists); err != nil {
		t.Fatalf("look up role: %v", err)
	}
	if !exists {
		exec(t, c, `SET password_encryption = 'scram-sha-256'`,
			fmt.Sprintf(`CREATE ROLE %s LOGIN PASSWORD '%s'`, passwordRole, strings.ReplaceAll(rolePassword, "'", "''")))
	}
	requirePassword(t, c)
	var db string
	if err := c.QueryRow(context.Background(), `SELECT current_database()`).Scan(&db); err != nil {
		t.Fatalf("current database: %v", err)
	}
	exec(t, c, fmt.Sprintf(`ALTER DATABASE %s OWNER TO %s`, pgx.Identifier{db}.Sanitize(), passwordRole))
	cfg, err := pgconn.ParseConfig(dsn)
	if err != nil {
		t.Fatalf("parse dsn: %v", err)
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(passwordRole, password),
		Host: fmt.Sprintf("127.0.0.1:%d", cfg.Port), Path: "/" + db, RawQuery: "sslmode=disable"}
	return u.String()
}

// requirePassword puts a scram-sha-256 line for the password role first in
// pg_hba.conf and reloads the server's configuration.
func requirePassword(t testing.TB, c *pgx.Conn) {
	t.Helper()
	hba := filepath.Join(server.Dir, "data", "pg_hba.conf")
	b, err := os.ReadFile(hba)
	if err != nil {
		t.Fatalf("read pg_hba.conf: %v", err)
	}
	line := "host all " + passwordRole + " 127.0.0.1/32 scram-sha-256\n"
	if strings.HasPrefix(string(b), line) {
		return
	}
	// WriteFile keeps the file's owner (the postgres OS user).
	if err := os.WriteFile(hba, append([]byte(line), b...), 0o600); err != nil {
		t.Fatalf("write pg_hba.conf: %v", err)
	}
	exec(t, c, `SELECT pg_reload_conf()`)
	// The reload is asynchronous: wait until a wrong password is refused.
	cfg, err := pgconn.ParseConfig(c.Config().ConnString())
	if err != nil {
		t.Fatalf("parse dsn: %v", err)
	}
	u := url.URL{Scheme: "postgres", User: url.UserPassword(passwordRole, "probe-wrong"),
		Host: fmt.Sprintf("127.0.0.1:%d", cfg.Port), Path: "/postgres", RawQuery: "sslmode=disable"}
	testenv.Eventually(t, 10*time.Second, "a wrong password refused after reloading pg_hba.conf", func() error {
		probe, err := pgx.Connect(context.Background(), u.String())
		var pgErr *pgconn.PgError
		if errors.As(err, &pgErr) && pgErr.Code == "28P01" {
			return nil
		}
		if probe != nil {
			_ = probe.Close(context.Background())
		}
		return fmt.Errorf("the server still lets %s in without its password: %v", passwordRole, err)
	}, testenv.Every(50*time.Millisecond))
}
