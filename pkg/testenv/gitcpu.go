package testenv

import (
	"os"
	"strconv"
	"strings"
)

// GitCPUSeconds sums the CPU seconds a Git server started with
// GitOptions.CPULog logged to path: sh's `times`, user and system time of
// the shell and of its children, written like 0m0.012s. A missing file is
// zero seconds.
func GitCPUSeconds(path string) (float64, error) {
	b, err := os.ReadFile(path)
	if os.IsNotExist(err) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	var sum float64
	for _, f := range strings.Fields(string(b)) {
		sum += shDuration(f)
	}
	return sum, nil
}

// shDuration reads sh's "1m2.345s" as seconds; 0 for anything else.
func shDuration(s string) float64 {
	m, rest, ok := strings.Cut(strings.TrimSuffix(s, "s"), "m")
	if !ok {
		return 0
	}
	mins, err1 := strconv.ParseFloat(m, 64)
	secs, err2 := strconv.ParseFloat(rest, 64)
	if err1 != nil || err2 != nil {
		return 0
	}
	return 60*mins + secs
}
