package postgres_test

import (
	"context"
	"encoding/json"
	"errors"
	"net/url"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/pkg/sink/sinktest"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// TestDocsExample feeds the example of docs/sinks/postgres.md to the
// backend against the test server: only the endpoint's address and the
// Secret's values change (to the password-authenticated test role).
func TestDocsExample(t *testing.T) {
	role, err := url.Parse(passwordRoleDSN(t, rolePassword))
	if err != nil {
		t.Fatal(err)
	}
	creds := backend.MapCredentials{}
	objs := sinktest.DocObjects[v1alpha1.KollectDatabaseSinkSpec](t, "docs/sinks/postgres.md", "KollectDatabaseSink")
	secret, obj := sinktest.OneDoc(t, objs, "Secret"), sinktest.OneDoc(t, objs, "KollectDatabaseSink")
	if secret.StringData["username"] == "" || secret.StringData["password"] == "" {
		t.Fatalf("the example Secret has no username and password: %v", secret.StringData)
	}
	pw, _ := role.User.Password()
	creds[busv1.NamespacedName{Namespace: secret.Metadata.Namespace, Name: secret.Metadata.Name}] = map[string][]byte{
		"username": []byte(role.User.Username()), "password": []byte(pw)}
	ep, err := url.Parse(obj.Spec.Endpoint)
	if err != nil || obj.Spec.Postgres == nil {
		t.Fatalf("the example sink has endpoint %q (%v) and postgres %v", obj.Spec.Endpoint, err, obj.Spec.Postgres)
	}
	ep.Host, ep.Path, ep.RawQuery = role.Host, role.Path, "sslmode=disable"
	obj.Spec.Endpoint = ep.String()
	raw, err := json.Marshal(obj.Spec)
	if err != nil {
		t.Fatal(err)
	}
	k, err := postgres.Backend{Egress: egress.Policy{AllowPrivate: true}}.Open(context.Background(), busv1.SinkConfig{
		Family: busv1.FamilyDatabase, Type: "postgres", Namespace: obj.Metadata.Namespace, Name: obj.Metadata.Name, Cluster: obj.Spec.Cluster, Spec: raw}, creds)
	if err != nil {
		t.Fatalf("open the example sink: %v", err)
	}
	t.Cleanup(func() { _ = k.Close(context.Background()) })
	if err := k.Check(context.Background()); err != nil {
		t.Fatalf("check: %v", err)
	}
	s := snap(t, obj.Spec.Cluster, web, 1, row("a", 1), row("b", 2))
	write(t, k, s)
	if got, want := k.Table(), `"public"."kollect_rows"`; got != want {
		t.Fatalf("table %s, want %s", got, want)
	}
	dsn := role.String()
	if d := diff(want(s), newReader(t, dsn, k).read(t, "prod-eu-1", web)); d != "" {
		t.Fatalf("projection (-want +got):\n%s", d)
	}
}

func TestTheDefaultEgressPolicyRefusesTheLoopbackServer(t *testing.T) {
	dsn := newDatabase(t)
	k, err := openWith(postgres.Backend{}, dsn, spec("public", "inventory", v1alpha1.ProvisionEnsure))
	if err != nil {
		t.Fatalf("open: %v", err)
	}
	t.Cleanup(func() { _ = k.Close(context.Background()) })
	for op, err := range map[string]error{
		"write": k.Write(context.Background(), snap(t, "c", web, 1, row("a", 1))),
		"check": k.Check(context.Background()),
	} {
		if !sink.IsPermanent(err) || !errors.Is(err, egress.ErrDenied) {
			t.Fatalf("%s returned %v, want a permanent error wrapping egress.ErrDenied", op, err)
		}
	}
}
