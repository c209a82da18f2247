package app_test

import (
	"context"
	"errors"
	"net"
	"testing"
	"time"

	"github.com/nats-io/nats.go/jetstream"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// A service started before control provisioned the bus waits, and goes on
// once everything it needs exists.
func TestWaitProvisionedReturnsOnceEveryNeedExists(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	done := make(chan error, 1)
	go func() {
		done <- app.WaitProvisioned(ctx, n.JS, app.Bucket(bus.BucketConfig), app.ObjectStore(bus.ObjectStoreEnvelopes),
			app.Stream(bus.StreamSnapshots), app.Consumer(bus.StreamSnapshots, bus.ExporterConsumer("snapshot")))
	}()
	select {
	case err := <-done:
		t.Fatalf("WaitProvisioned returned %v on an empty bus", err)
	case <-time.After(300 * time.Millisecond): // it looked at least twice
	}
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	if err := <-done; err != nil {
		t.Fatalf("WaitProvisioned = %v after provisioning", err)
	}
}

func TestWaitProvisionedEndsWithItsContext(t *testing.T) {
	n := testenv.StartNATS(t)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- app.WaitProvisioned(ctx, n.JS, app.Bucket(bus.BucketConfig)) }()
	cancel()
	if err := <-done; !errors.Is(err, context.Canceled) {
		t.Fatalf("WaitProvisioned = %v, want context.Canceled", err)
	}
}

func TestWaitProvisionedWaitsWhileTheBusCannotAnswer(t *testing.T) {
	n := testenv.StartNATS(t)
	// No deadline on ctx: each request then times out on its own, as a
	// service's do.
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	if err := bus.Provision(ctx, n.JS, bus.DefaultOptions()); err != nil {
		t.Fatal(err)
	}
	port := n.Server.Addr().(*net.TCPAddr).Port
	n.Server.Shutdown() // every request now times out or finds no responder
	done := make(chan error, 1)
	// Short requests: each check times out well within the wait below.
	js, err := jetstream.New(n.Conn, jetstream.WithDefaultTimeout(200*time.Millisecond))
	if err != nil {
		t.Fatal(err)
	}
	go func() {
		done <- app.WaitProvisioned(ctx, js, app.Bucket(bus.BucketConfig))
	}()
	select {
	case err := <-done:
		t.Fatalf("WaitProvisioned returned %v while NATS was down", err)
	case <-time.After(3 * time.Second): // it must still be waiting after several attempts
	}
	back, err := testenv.NewNATS(n.StoreDir, port) // n's connection reconnects to it
	if err != nil {
		t.Fatal(err)
	}
	defer back.Stop()
	if err := <-done; err != nil {
		t.Fatalf("WaitProvisioned = %v once NATS was back", err)
	}
}
