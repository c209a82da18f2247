package testenv

import (
	"testing"
	"time"
)

// Eventually calls check every 20ms until it returns nil, and fails the
// test with what and check's last error when within passes first.
func Eventually(t testing.TB, within time.Duration, what string, check func() error) {
	t.Helper()
	deadline := time.Now().Add(within)
	tick := time.NewTicker(20 * time.Millisecond)
	defer tick.Stop()
	for {
		err := check()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %v", what, err)
		}
		<-tick.C
	}
}
