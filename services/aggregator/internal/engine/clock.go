package engine

import "time"

// Clock is the engine's source of time; tests drive cadence with a fake one.
type Clock interface {
	// Now returns the current time.
	Now() time.Time
	// Until returns a channel that receives once the clock reaches t; a t
	// not after now fires at once. It takes the time, not a duration, so
	// that no reading of Now between the caller's and the timer's can move
	// the wake-up (a fake clock advanced in between would lose it).
	Until(t time.Time) <-chan time.Time
}

// RealClock is the wall clock.
type RealClock struct{}

// Now returns time.Now().
func (RealClock) Now() time.Time { return time.Now() }

// Until returns time.After(time.Until(t)).
func (RealClock) Until(t time.Time) <-chan time.Time { return time.After(time.Until(t)) }
