package failpoint

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

// Env is the environment variable that arms crash points.
const Env = "KOLLECT_FAILPOINT"

type point struct {
	action string
	at     int64 // fire on the at-th hit (1 = first)
	hits   int64
}

var (
	mu     sync.Mutex
	points = parse(os.Getenv(Env))
)

// parse reads a KOLLECT_FAILPOINT value; malformed entries are ignored
// (reported on standard error), so a typo never crashes a service.
func parse(v string) map[string]*point {
	if v == "" {
		return nil
	}
	out := map[string]*point{}
	for entry := range strings.SplitSeq(v, ";") {
		entry = strings.TrimSpace(entry)
		if entry == "" {
			continue
		}
		name, spec, ok := strings.Cut(entry, "=")
		action, count, hasCount := strings.Cut(spec, "@")
		at := int64(1)
		if hasCount {
			n, err := strconv.ParseInt(count, 10, 64)
			if err != nil || n < 1 {
				ok = false
			}
			at = n
		}
		if !ok || (action != "exit" && action != "stop") {
			fmt.Fprintf(os.Stderr, "kollect failpoint: ignoring %q (want name=exit|stop[@n])\n", entry)
			continue
		}
		out[name] = &point{action: action, at: at}
	}
	return out
}

// Armed reports whether any crash point is armed in this process.
func Armed() bool { return len(points) > 0 }

// Hit passes the crash point name: it acts when KOLLECT_FAILPOINT arms name
// and this is the hit it names, and does nothing otherwise.
func Hit(name string) {
	if points == nil {
		return
	}
	mu.Lock()
	p := points[name]
	fire := false
	if p != nil {
		p.hits++
		fire = p.hits == p.at
	}
	mu.Unlock()
	if !fire {
		return
	}
	fmt.Fprintf(os.Stderr, "kollect failpoint %s %s\n", name, p.action)
	switch p.action {
	case "exit":
		_ = syscall.Kill(os.Getpid(), syscall.SIGKILL)
		select {} // the signal is on its way
	case "stop":
		_ = syscall.Kill(os.Getpid(), syscall.SIGSTOP)
	}
}
