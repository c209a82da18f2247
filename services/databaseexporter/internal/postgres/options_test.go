package postgres_test

import (
	"context"
	"strings"
	"testing"
	"time"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/databaseexporter/internal/postgres"
)

// TestOptionsAreConnectionRuntimeParameters pins spec.options of postgres
// sinks on a real server: application_name names the sink's sessions and
// lock_timeout bounds how long a write waits for a lock.
func TestOptionsAreConnectionRuntimeParameters(t *testing.T) {
	dsn := newDatabase(t)
	s := spec("public", "inventory", v1alpha1.ProvisionEnsure)
	s.Options = map[string]string{"application_name": "kollect-options-test", "lock_timeout": "200", "statement_timeout": "30000"}
	k := open(t, dsn, s)
	write(t, k, snap(t, "default", web, 1, row("a", 1)))
	c := connect(t, dsn)
	var sessions int
	if err := c.QueryRow(context.Background(),
		"select count(*) from pg_stat_activity where application_name = 'kollect-options-test'").Scan(&sessions); err != nil {
		t.Fatal(err)
	}
	if sessions == 0 {
		t.Errorf("no session named by options.application_name")
	}
	exec(t, c, "begin", "lock table public.inventory in access exclusive mode")
	defer exec(t, c, "rollback")
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	start := time.Now()
	err := k.Write(ctx, snap(t, "default", web, 2, row("a", 2)))
	if err == nil || !strings.Contains(err.Error(), "lock timeout") {
		t.Fatalf("write under a lock: %v, want the lock timeout of options.lock_timeout", err)
	}
	if d := time.Since(start); d > 10*time.Second {
		t.Errorf("the write waited %s for the lock, want about 200ms", d)
	}
}

func TestUnknownOptionsAreRefusedByName(t *testing.T) {
	s := spec("public", "inventory", v1alpha1.ProvisionEnsure)
	s.Options = map[string]string{"search_path": "x"}
	_, err := openWith(postgres.Backend{Egress: egress.Policy{AllowPrivate: true}}, newDatabase(t), s)
	if !sink.IsPermanent(err) || !strings.Contains(err.Error(), "spec.options.search_path") {
		t.Fatalf("open: %v, want a permanent error naming spec.options.search_path", err)
	}
}
