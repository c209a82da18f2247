package cli

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"
)

func TestVersion(t *testing.T) {
	var out, errOut bytes.Buffer
	if code := Main(context.Background(), []string{"version", "-o", "json"}, Streams{Out: &out, Err: &errOut}); code != 0 {
		t.Fatalf("exit %d: %s", code, errOut.String())
	}
	var b buildInfo
	if err := json.Unmarshal(out.Bytes(), &b); err != nil || b.Version == "" || b.GoVersion == "" || !strings.Contains(b.Platform, "/") {
		t.Fatalf("version -o json = %s (%v)", out.String(), err)
	}
	out.Reset()
	if code := Main(context.Background(), []string{"--version"}, Streams{Out: &out, Err: &errOut}); code != 0 || out.String() != "kollect "+b.Version+" ("+b.Commit+")\n" {
		t.Fatalf("--version: exit %d: %q", code, out.String())
	}
}
