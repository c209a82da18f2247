package testenv_test

import (
	"net"
	"testing"
	"time"
)

// requireClosed fails when addr still accepts TCP connections after a peer
// was stopped.
func requireClosed(t *testing.T, addr string) {
	t.Helper()
	c, err := net.DialTimeout("tcp", addr, time.Second)
	if err == nil {
		c.Close()
		t.Fatalf("%s still accepts connections after Stop", addr)
	}
}

// timed runs start and logs how long it took, the figure the report quotes.
func timed[T any](t *testing.T, what string, start func() T) T {
	t.Helper()
	t0 := time.Now()
	v := start()
	t.Logf("%s started in %s", what, time.Since(t0).Round(time.Millisecond))
	return v
}
