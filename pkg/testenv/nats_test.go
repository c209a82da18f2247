package testenv_test

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"kollect.dev/kollect/pkg/testenv"
)

// bigReservation is more than 75% of the free disk of any runner this suite
// meets, the limit nats-server takes when none is configured.
const bigReservation = 512 << 30

// reserve creates a file stream reserving bigReservation bytes: the bus's
// object stores reserve their MaxBytes the same way.
func reserve(t *testing.T, js jetstream.JetStream) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_, err := js.CreateStream(ctx, jetstream.StreamConfig{Name: "reserved", Subjects: []string{"reserved"},
		Storage: jetstream.FileStorage, MaxBytes: bigReservation})
	if err != nil {
		t.Fatalf("a stream reserving %d GiB: %v", bigReservation>>30, err)
	}
}

// The bus reserves its object stores' MaxBytes up front; a runner with
// little free disk must not refuse that, so every server testenv starts has
// a fixed store limit (testenv.MaxStore).
func TestAStreamReservationDoesNotDependOnTheFreeDisk(t *testing.T) {
	t.Run("embedded", func(t *testing.T) {
		n := testenv.StartNATS(t)
		reserve(t, n.JS)
	})
	t.Run("process", func(t *testing.T) {
		root, err := testenv.RepoRoot()
		if err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
		defer cancel()
		bin, err := testenv.BuildNATSServer(ctx, root, t.TempDir())
		if err != nil {
			t.Fatal(err)
		}
		p, err := testenv.NewNATSProcess(bin, filepath.Join(t.TempDir(), "nats"))
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = p.Stop() })
		nc, err := nats.Connect(p.URL)
		if err != nil {
			t.Fatal(err)
		}
		defer nc.Close()
		js, err := jetstream.New(nc)
		if err != nil {
			t.Fatal(err)
		}
		reserve(t, js)
	})
}
