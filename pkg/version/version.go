package version

// Version is the release version (for example v0.3.0); "dev" in a development build.
var Version = "dev"

// Commit is the source commit the binary was built from; "unknown" in a development build.
var Commit = "unknown"

// String returns "<version> (<commit>)", the line `kollect version` prints.
func String() string {
	return Version + " (" + Commit + ")"
}
