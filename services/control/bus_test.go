package control

import (
	"flag"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"
	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/bus"
)

func TestBusFlagsSetTheProvisionedOptions(t *testing.T) {
	tests := []struct {
		name string
		args []string
		want func(*bus.Options)
		err  []string
	}{
		{name: "no flag keeps the bus defaults", want: func(*bus.Options) {}},
		{name: "three replicas in memory with a short history",
			args: []string{"--bus-replicas=3", "--bus-storage=memory", "--bus-snapshot-history=4", "--bus-snapshot-max-age=24h"},
			want: func(o *bus.Options) {
				o.Replicas, o.Storage, o.SnapshotHistory, o.SnapshotMaxAge = 3, jetstream.MemoryStorage, 4, 24*time.Hour
			}},
		{name: "a short ack wait redelivers sooner after an exporter crash",
			args: []string{"--bus-exporter-ack-wait=5s"}, want: func(o *bus.Options) { o.ExporterAckWait = 5 * time.Second }},
		{name: "an ack wait below a second is refused", args: []string{"--bus-exporter-ack-wait=10ms"}, err: []string{"exporterAckWait 10ms"}},
		{name: "dead letters are bounded per inventory",
			args: []string{"--bus-dead-letters-per-inventory=20"}, want: func(o *bus.Options) { o.DeadLetterMaxMsgsPerInventory = 20 }},
		{name: "no dead letter per inventory is refused", args: []string{"--bus-dead-letters-per-inventory=0"},
			err: []string{"--bus-dead-letters-per-inventory 0: must be 1 to --bus-dead-letters (100000)"}},
		{name: "more dead letters per inventory than the stream keeps are refused",
			args: []string{"--bus-dead-letters-per-inventory=100001"}, err: []string{"--bus-dead-letters-per-inventory 100001: must be 1 to --bus-dead-letters (100000)"}},
		{name: "the stream-wide dead-letter bound is the operator's",
			args: []string{"--bus-dead-letters=500000", "--bus-dead-letters-per-inventory=200"},
			want: func(o *bus.Options) { o.DeadLetterMaxMsgs, o.DeadLetterMaxMsgsPerInventory = 500000, 200 }},
		{name: "no dead letter at all is refused", args: []string{"--bus-dead-letters=0", "--bus-dead-letters-per-inventory=1"},
			err: []string{"--bus-dead-letters 0: must be at least 1", "--bus-dead-letters-per-inventory 1: must be 1 to --bus-dead-letters (0)"}},
		{name: "a max age of zero keeps events until the history evicts them",
			args: []string{"--bus-snapshot-max-age=0"}, want: func(o *bus.Options) { o.SnapshotMaxAge = 0 }},
		{name: "every flag out of range is named",
			args: []string{"--bus-replicas=0", "--bus-storage=ssd", "--bus-snapshot-history=0", "--bus-snapshot-max-age=-1h"},
			err:  []string{"--bus-replicas 0", `--bus-storage "ssd"`, "--bus-snapshot-history 0", "--bus-snapshot-max-age -1h0m0s"}},
		{name: "six replicas are more than JetStream allows", args: []string{"--bus-replicas=6"}, err: []string{"--bus-replicas 6: must be 1 to 5"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			c := DefaultConfig()
			fs := flag.NewFlagSet("control", flag.ContinueOnError)
			c.BindFlags(fs)
			if err := fs.Parse(tc.args); err != nil {
				t.Fatal(err)
			}
			got, err := c.BusLimits.Options()
			if tc.err != nil {
				if err == nil {
					t.Fatalf("Options() = %+v, want an error naming %q", got, tc.err)
				}
				for _, want := range tc.err {
					if !strings.Contains(err.Error(), want) {
						t.Errorf("error %q does not name %q", err, want)
					}
				}
				return
			}
			if err != nil {
				t.Fatalf("Options(): %v", err)
			}
			want := bus.DefaultOptions()
			tc.want(&want)
			if d := cmp.Diff(want, got); d != "" {
				t.Errorf("options (-want +got):\n%s", d)
			}
		})
	}
}
