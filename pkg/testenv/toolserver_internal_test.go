package testenv

import (
	"strings"
	"testing"
)

func TestAMissingToolNamesMakeTools(t *testing.T) {
	_, err := startTool("", toolSpec{tool: "bin/no-such-tool", name: "none", pattern: "kollect-none-"})
	if err == nil || !strings.Contains(err.Error(), "make tools") {
		t.Fatalf("err = %v, want one telling to run `make tools`", err)
	}
}
