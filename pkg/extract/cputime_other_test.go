//go:build !linux

package extract

import "time"

// cpuTime returns the time f takes on the clock: only Linux tells a
// thread's CPU time.
func cpuTime(f func()) time.Duration {
	start := time.Now()
	f()
	return time.Since(start)
}
