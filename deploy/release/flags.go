package release

import (
	"fmt"
	"strings"
)

// SplitList splits a comma-separated flag value, dropping blanks.
func SplitList(s string) []string {
	var out []string
	for _, f := range strings.Split(s, ",") {
		if f = strings.TrimSpace(f); f != "" {
			out = append(out, f)
		}
	}
	return out
}

// ParsePlatforms parses a comma-separated GOOS/GOARCH list.
func ParsePlatforms(s string) ([]Platform, error) {
	var ps []Platform
	for _, f := range SplitList(s) {
		goos, arch, ok := strings.Cut(f, "/")
		if !ok || goos == "" || arch == "" {
			return nil, fmt.Errorf("parse platform %q: want GOOS/GOARCH", f)
		}
		ps = append(ps, Platform{OS: goos, Arch: arch})
	}
	return ps, nil
}
