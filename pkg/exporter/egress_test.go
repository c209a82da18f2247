package exporter_test

import (
	"flag"
	"io"
	"net/netip"
	"slices"
	"testing"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/exporter"
)

func TestEgressFlagsBuildTheExportersPolicy(t *testing.T) {
	c := exporter.DefaultServiceConfig(busv1.FamilyDatabase)
	fs := flag.NewFlagSet("exporter", flag.ContinueOnError)
	fs.SetOutput(io.Discard)
	c.BindFlags(fs)
	if p := c.Egress(); p.AllowPrivate || p.AllowLinkLocal || len(p.Deny) != 0 {
		t.Fatalf("the default policy = %+v, want public addresses only", p)
	}
	if err := fs.Parse([]string{"--allow-in-cluster-sinks", "--allow-link-local-sinks", "--deny-sink-cidrs=10.96.0.0/12,10.244.0.0/16"}); err != nil {
		t.Fatal(err)
	}
	p := c.Egress()
	want := []netip.Prefix{netip.MustParsePrefix("10.96.0.0/12"), netip.MustParsePrefix("10.244.0.0/16")}
	if !p.AllowPrivate || !p.AllowLinkLocal || !slices.Equal(p.Deny, want) {
		t.Fatalf("Egress() = %+v, want both opt-ins and the deny list %v", p, want)
	}
	if err := p.Check(netip.MustParseAddr("10.96.0.1")); err == nil {
		t.Fatal("the policy admits an address of the deny list")
	}
}
