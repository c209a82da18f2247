// Package version holds the build's version and source commit, stamped by the release
// build with -ldflags "-X kollect.dev/kollect/pkg/version.Version=... -X ...Commit=...".
// It owns nothing else: it does not read VCS information at run time, and a development
// build reports "dev" and "unknown".
package version
