package loadtest

import (
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// clockTicks is USER_HZ, 100 on every Linux this runs on.
const clockTicks = 100

// procStat is what /proc says about one process.
type procStat struct {
	RSS, HWM float64 // MiB
	CPU      float64 // seconds: utime+stime
	ChildCPU float64 // seconds: cutime+cstime of waited-for children
	PPid     int
	Comm     string
}

// readProc reads /proc/<pid>/status and /proc/<pid>/stat.
func readProc(pid int) (procStat, error) {
	var s procStat
	status, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return s, err
	}
	for _, line := range strings.Split(string(status), "\n") {
		k, v, ok := strings.Cut(line, ":")
		if !ok {
			continue
		}
		f := strings.Fields(v)
		switch k {
		case "VmRSS":
			s.RSS = kib(f)
		case "VmHWM":
			s.HWM = kib(f)
		case "PPid":
			s.PPid, _ = strconv.Atoi(f[0])
		}
	}
	stat, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return s, err
	}
	// The command is in parentheses and may hold spaces: fields count from
	// the last ')'.
	str := string(stat)
	open, end := strings.IndexByte(str, '('), strings.LastIndexByte(str, ')')
	if open < 0 || end < open {
		return s, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	s.Comm = str[open+1 : end]
	f := strings.Fields(str[end+1:])
	// f[0] is field 3 (state): utime is field 14, stime 15, cutime 16, cstime 17.
	if len(f) < 15 {
		return s, fmt.Errorf("parse /proc/%d/stat", pid)
	}
	tick := func(i int) float64 { v, _ := strconv.ParseFloat(f[i], 64); return v / clockTicks }
	s.CPU, s.ChildCPU = tick(11)+tick(12), tick(13)+tick(14)
	return s, nil
}

func kib(f []string) float64 {
	if len(f) == 0 {
		return 0
	}
	v, _ := strconv.ParseFloat(f[0], 64)
	return v / 1024
}

// children returns the pids whose parent is ppid, by command name.
func children(ppid int) map[string][]int {
	out := map[string][]int{}
	dirs, _ := filepath.Glob("/proc/[0-9]*")
	for _, d := range dirs {
		pid, err := strconv.Atoi(filepath.Base(d))
		if err != nil {
			continue
		}
		s, err := readProc(pid)
		if err != nil || s.PPid != ppid {
			continue
		}
		out[s.Comm] = append(out[s.Comm], pid)
	}
	return out
}
