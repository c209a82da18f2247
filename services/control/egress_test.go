package control_test

import (
	"flag"
	"io"
	"net/netip"
	"slices"
	"testing"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/services/control"
)

func TestEgressFlagsBuildThePolicy(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want egress.Policy
	}{
		{"no flag admits public addresses only", nil, egress.Policy{}},
		{"every opt-in and a repeated deny list", []string{"--allow-in-cluster-sinks", "--allow-link-local-sinks", "--allow-file-sinks",
			"--deny-sink-cidrs=10.96.0.0/12,fd00:10:96::/108", "--deny-sink-cidrs=34.118.224.0/20"},
			egress.Policy{AllowPrivate: true, AllowLinkLocal: true, AllowLocalFiles: true, Deny: []netip.Prefix{
				netip.MustParsePrefix("10.96.0.0/12"), netip.MustParsePrefix("fd00:10:96::/108"), netip.MustParsePrefix("34.118.224.0/20")}}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := control.DefaultConfig()
			fs := flag.NewFlagSet("control", flag.ContinueOnError)
			fs.SetOutput(io.Discard)
			c.BindFlags(fs)
			if err := fs.Parse(tt.args); err != nil {
				t.Fatal(err)
			}
			got := c.Egress()
			if got.AllowPrivate != tt.want.AllowPrivate || got.AllowLinkLocal != tt.want.AllowLinkLocal ||
				got.AllowLocalFiles != tt.want.AllowLocalFiles || !slices.Equal(got.Deny, tt.want.Deny) {
				t.Fatalf("Egress() = %+v, want %+v", got, tt.want)
			}
		})
	}
	t.Run("a deny list entry that is not a network is a flag error", func(t *testing.T) {
		c := control.DefaultConfig()
		fs := flag.NewFlagSet("control", flag.ContinueOnError)
		fs.SetOutput(io.Discard)
		c.BindFlags(fs)
		if err := fs.Parse([]string{"--deny-sink-cidrs=kubernetes.default"}); err == nil {
			t.Fatal("parse accepted a host name as a network")
		}
	})
}
