package app_test

import (
	"flag"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"kollect.dev/kollect/pkg/app"
)

func TestADeprecatedAliasSetsTheSameVariable(t *testing.T) {
	l := app.DefaultLeaderOptions("kollect-test")
	fs := flag.NewFlagSet("t", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	l.BindLeaseFlags(fs)
	app.Alias(fs, "lease-ttl", app.FlagLeaseDuration)
	if err := fs.Parse([]string{"--lease-ttl=3s"}); err != nil {
		t.Fatal(err)
	}
	if l.LeaseDuration != 3*time.Second {
		t.Errorf("--lease-ttl=3s set the lease duration to %v", l.LeaseDuration)
	}
	if got := fs.Lookup("lease-ttl").Usage; got != "Deprecated: use --leader-election-lease-duration." {
		t.Errorf("usage = %q", got)
	}
}

func TestTheFlagTableIsTheSameOnEveryHost(t *testing.T) {
	a, b := app.DefaultLeaderOptions("x"), app.DefaultLeaderOptions("x")
	if a.Identity == b.Identity {
		t.Fatalf("two default identities are both %q", a.Identity)
	}
	table := func(o app.LeaderOptions) string {
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		o.BindLeaseFlags(fs)
		return app.FlagTable(fs)
	}
	if diff := cmp.Diff(table(a), table(b)); diff != "" {
		t.Errorf("the tables of two processes differ:\n%s", diff)
	}
	if got := table(a); !strings.Contains(got, "--leader-election-identity=<hostname>_<random>\n") {
		t.Errorf("the identity is not normalised:\n%s", got)
	}
}

func TestLeaderElectionSettingsOutOfOrderAreRefusedByName(t *testing.T) {
	o := app.DefaultLeaderOptions("kollect-test")
	o.RenewDeadline = o.LeaseDuration
	err := o.Validate()
	if err == nil || !strings.Contains(err.Error(), "--leader-election-lease-duration > --leader-election-renew-deadline") {
		t.Fatalf("Validate = %v, want the order of the three durations named", err)
	}
	o.Enabled = false
	if err := o.Validate(); err != nil {
		t.Errorf("Validate with election off = %v", err)
	}
}

func TestTheLeaseNamespaceFallsBackToThePodsNamespace(t *testing.T) {
	o := app.DefaultLeaderOptions("kollect-test")
	t.Setenv("POD_NAMESPACE", "kollect-ops")
	if got := o.LeaseNamespace(); got != "kollect-ops" {
		t.Errorf("LeaseNamespace = %q, want $POD_NAMESPACE", got)
	}
	o.Namespace = "elsewhere"
	if got := o.LeaseNamespace(); got != "elsewhere" {
		t.Errorf("LeaseNamespace = %q, want the flag's", got)
	}
}
