package postgres

import (
	"context"
	"crypto/tls"
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// conn is what a resolved connection configuration connects to.
type conn struct {
	Host, User, Password, Database string
	Port                           uint16
}

func TestConnectionStringPrecedence(t *testing.T) {
	const (
		secretDSN = "postgres://alice:dsn-pw@dsn.example.com:5433/dsndb?sslmode=disable"
		secretURI = "postgres://bob:uri-pw@uri.example.com:5434/uridb?sslmode=disable"
		refDSN    = "postgres://carol:ref-pw@ref.example.com:5435/refdb?sslmode=disable"
		endpoint  = "postgres://db.example.com:5432/inventory?sslmode=disable"
	)
	secretRef := &v1alpha1.SecretReference{Name: "pg"}
	databaseRef := &v1alpha1.DatabaseSecretReference{Name: "other", Key: "connection"}
	creds := func(pg map[string]string) backend.MapCredentials {
		m := backend.MapCredentials{{Namespace: "team-a", Name: "other"}: {"connection": []byte(refDSN)}}
		if pg != nil {
			data := map[string][]byte{}
			for k, v := range pg {
				data[k] = []byte(v)
			}
			m[busv1.NamespacedName{Namespace: "team-a", Name: "pg"}] = data
		}
		return m
	}
	for _, c := range []struct {
		name        string
		endpoint    string
		secretRef   *v1alpha1.SecretReference
		databaseRef *v1alpha1.DatabaseSecretReference
		secret      map[string]string
		want        conn
	}{
		{"the dsn key of secretRef's Secret is the whole connection string", "", secretRef, nil,
			map[string]string{"dsn": secretDSN, "uri": secretURI}, conn{"dsn.example.com", "alice", "dsn-pw", "dsndb", 5433}},
		{"the uri key is read when there is no dsn key", "", secretRef, nil,
			map[string]string{"uri": secretURI}, conn{"uri.example.com", "bob", "uri-pw", "uridb", 5434}},
		{"postgres.databaseRef wins over secretRef's keys", "", secretRef, databaseRef,
			map[string]string{"dsn": secretDSN}, conn{"ref.example.com", "carol", "ref-pw", "refdb", 5435}},
		{"the endpoint supplies the server and the Secret's username and password the credentials", endpoint, secretRef, nil,
			map[string]string{"username": "dave", "password": "pw"}, conn{"db.example.com", "dave", "pw", "inventory", 5432}},
		{"with an endpoint, a Secret dsn supplies only the credentials", endpoint, secretRef, nil,
			map[string]string{"dsn": secretDSN, "username": "ignored"}, conn{"db.example.com", "alice", "dsn-pw", "inventory", 5432}},
		{"with an endpoint, databaseRef supplies only the credentials", endpoint, nil, databaseRef,
			nil, conn{"db.example.com", "carol", "ref-pw", "inventory", 5432}},
		{"the endpoint's own user is kept without a username key", "postgres://erin@db.example.com/inventory", secretRef, nil,
			map[string]string{"password": "pw"}, conn{"db.example.com", "erin", "pw", "inventory", 5432}},
	} {
		t.Run(c.name, func(t *testing.T) {
			spec := &v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabasePostgres, Endpoint: c.endpoint,
				SinkCommon: v1alpha1.SinkCommon{SecretRef: c.secretRef},
				Postgres:   &v1alpha1.PostgresSink{DatabaseRef: c.databaseRef, Schema: "public", Table: "t"}}
			cfg, err := connConfig(context.Background(), spec, "team-a", creds(c.secret))
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			cc := cfg.ConnConfig
			got := conn{cc.Host, cc.User, cc.Password, cc.Database, cc.Port}
			if d := cmp.Diff(c.want, got); d != "" {
				t.Fatalf("connection (-want +got):\n%s", d)
			}
		})
	}
}

func TestInvalidConfigurationIsPermanentAndNamesTheField(t *testing.T) {
	const password = "hunter2-secret"
	for _, c := range []struct {
		name     string
		spec     string
		secrets  backend.MapCredentials
		wantText string
	}{
		{"a missing table", `{"type":"postgres","secretRef":{"name":"pg"},"postgres":{}}`, nil, "spec.postgres.table is required"},
		{"another type", `{"type":"mongodb","postgres":{"table":"t"}}`, nil, `spec.type is "mongodb"`},
		{"a missing Secret", `{"type":"postgres","secretRef":{"name":"pg"},"postgres":{"table":"t"}}`, nil, "team-a/pg"},
		{"a Secret without dsn or uri and no endpoint", `{"type":"postgres","secretRef":{"name":"pg"},"postgres":{"table":"t"}}`,
			backend.MapCredentials{{Namespace: "team-a", Name: "pg"}: {"password": []byte(password)}}, `Secret team-a/pg has no key "dsn" or "uri"`},
		{"a missing databaseRef key", `{"type":"postgres","postgres":{"table":"t","databaseRef":{"name":"db","key":"url"}}}`,
			backend.MapCredentials{{Namespace: "team-a", Name: "db"}: {"dsn": []byte(password)}}, `Secret team-a/db has no key "url"`},
		{"an unparsable dsn, without quoting it", `{"type":"postgres","secretRef":{"name":"pg"},"postgres":{"table":"t"}}`,
			backend.MapCredentials{{Namespace: "team-a", Name: "pg"}: {"dsn": []byte("postgres://u:" + password + "@h:notaport/db")}}, `Secret team-a/pg key "dsn" is not a valid PostgreSQL connection string`},
		{"an endpoint with a password", `{"type":"postgres","endpoint":"postgres://u:` + password + `@h/db","postgres":{"table":"t"}}`, nil, "spec.endpoint must not carry a password"},
		{"no server at all", `{"type":"postgres","postgres":{"table":"t"}}`, nil, "need an endpoint, a secretRef or a databaseRef"},
		{"an unknown field", `{"type":"postgres","endpoint":"postgres://h/db","postgres":{"table":"t","tabel":"u"}}`, nil, `unknown field "tabel"`},
	} {
		t.Run(c.name, func(t *testing.T) {
			_, err := Backend{}.New(context.Background(), busv1.SinkConfig{Namespace: "team-a", Name: "db", Spec: []byte(c.spec)}, c.secrets)
			if !sink.IsPermanent(err) || !strings.Contains(err.Error(), c.wantText) {
				t.Fatalf("New returned %v, want a permanent error saying %q", err, c.wantText)
			}
			if strings.Contains(err.Error(), password) {
				t.Fatalf("the error reveals the secret: %v", err)
			}
		})
	}
}

func TestSpecTLSMakesEveryAttemptUseVerifiedTLS(t *testing.T) {
	spec := &v1alpha1.KollectDatabaseSinkSpec{Type: v1alpha1.DatabasePostgres,
		Endpoint:   "postgres://a.example.com,b.example.com:5433/db?sslmode=prefer",
		SinkCommon: v1alpha1.SinkCommon{TLS: &v1alpha1.TLSConfig{InsecureSkipVerify: false}},
		Postgres:   &v1alpha1.PostgresSink{Schema: "public", Table: "t"}}
	cfg, err := connConfig(context.Background(), spec, "team-a", backend.MapCredentials{})
	if err != nil {
		t.Fatalf("resolve: %v", err)
	}
	cc := cfg.ConnConfig
	got := []string{cc.Host + " " + tlsServer(cc.TLSConfig)}
	for _, f := range cc.Fallbacks {
		got = append(got, f.Host+" "+tlsServer(f.TLSConfig))
	}
	want := []string{"a.example.com tls a.example.com", "b.example.com tls b.example.com"}
	if d := cmp.Diff(want, got); d != "" {
		t.Fatalf("attempts (-want +got):\n%s", d)
	}
}

func tlsServer(c *tls.Config) string {
	if c == nil {
		return "plain"
	}
	if c.InsecureSkipVerify {
		return "tls unverified " + c.ServerName
	}
	return "tls " + c.ServerName
}

func TestTheEstablishedDatabaseRefReadsTheDSNKey(t *testing.T) {
	const refDSN = "postgres://carol:ref-pw@ref.example.com:5435/refdb?sslmode=disable"
	creds := backend.MapCredentials{{Namespace: "team-a", Name: "db"}: {"dsn": []byte(refDSN), "other": []byte("x")}}
	for _, spec := range []string{
		`{"type":"postgres","postgres":{"table":"t","databaseRef":{"name":"db"}}}`,
		`{"type":"postgres","postgres":{"table":"t","databaseRef":{"name":"db","namespace":"team-a"}}}`,
		`{"type":"postgres","postgres":{"table":"t","databaseRef":{"name":"db","key":"dsn"}}}`,
	} {
		t.Run(spec, func(t *testing.T) {
			s, err := decodeSpec(busv1.SinkConfig{Spec: []byte(spec)})
			if err != nil {
				t.Fatal(err)
			}
			cfg, err := connConfig(context.Background(), s, "team-a", creds)
			if err != nil {
				t.Fatalf("resolve: %v", err)
			}
			if cc := cfg.ConnConfig; cc.Host != "ref.example.com" || cc.User != "carol" {
				t.Errorf("connects to %s as %s, want ref.example.com as carol", cc.Host, cc.User)
			}
		})
	}
}
