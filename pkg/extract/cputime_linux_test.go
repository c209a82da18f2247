package extract

import (
	"runtime"
	"syscall"
	"time"
	"unsafe"
)

// clockThreadCPUTime is Linux's CLOCK_THREAD_CPUTIME_ID, which package
// syscall does not name (getrusage's thread times count whole ticks).
const clockThreadCPUTime = 3

// cpuTime returns the CPU time f takes on this thread: unlike the time on
// the clock, other processes on a loaded machine do not add to it.
func cpuTime(f func()) time.Duration {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	before := threadTime()
	f()
	return threadTime() - before
}

func threadTime() time.Duration {
	var ts syscall.Timespec
	//nolint:gosec // G103: clock_gettime writes the Timespec it is given, as the kernel's ABI says
	if _, _, errno := syscall.Syscall(syscall.SYS_CLOCK_GETTIME, clockThreadCPUTime, uintptr(unsafe.Pointer(&ts)), 0); errno != 0 {
		panic(errno)
	}
	return time.Duration(ts.Nano())
}
