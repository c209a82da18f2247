package version

import "testing"

func TestStringNamesVersionAndCommit(t *testing.T) {
	v, c := Version, Commit
	t.Cleanup(func() { Version, Commit = v, c })
	Version, Commit = "v1.2.3", "abc123"
	if got, want := String(), "v1.2.3 (abc123)"; got != want {
		t.Fatalf("String() = %q, want %q", got, want)
	}
}
