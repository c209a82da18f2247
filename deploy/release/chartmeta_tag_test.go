package release

import (
	"os"
	"os/exec"
	"strings"
	"testing"

	"kollect.dev/kollect/pkg/testenv"
)

// TestTheImageTagDefaultsAreTheChartsOne keeps the tag make images and make
// release use by default (make image-tag) and the images command's default
// (ChartTag) equal to v<appVersion> of the checked-out chart; the chart's own
// test (charts/kollect, TestTheChartInstallsTheTagMakeImagesBuilds) checks
// that it renders that tag.
func TestTheImageTagDefaultsAreTheChartsOne(t *testing.T) {
	root, err := testenv.RepoRoot()
	if err != nil {
		t.Fatal(err)
	}
	tag, err := ChartTag(root)
	if err != nil {
		t.Fatal(err)
	}
	if !versionRE.MatchString(tag) {
		t.Errorf("ChartTag = %q, want vMAJOR.MINOR.PATCH", tag)
	}
	cmd := exec.Command("make", "-s", "--no-print-directory", "image-tag")
	cmd.Dir = root
	cmd.Env = withoutVars(os.Environ(), "TAG", "VERSION", "MAKEFLAGS")
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("make image-tag: %v", err)
	}
	if got := strings.TrimSpace(string(out)); got != tag {
		t.Errorf("make image-tag = %q, ChartTag = %q: make images would push another tag than the images command and the chart", got, tag)
	}
	cmd = exec.Command("make", "-s", "--no-print-directory", "image-tag", "TAG=v9.8.7")
	cmd.Dir = root
	cmd.Env = withoutVars(os.Environ(), "TAG", "VERSION", "MAKEFLAGS")
	if out, err := cmd.Output(); err != nil || strings.TrimSpace(string(out)) != "v9.8.7" {
		t.Errorf("make image-tag TAG=v9.8.7 = %q, %v; want the override", out, err)
	}
}

// withoutVars drops the named variables from env.
func withoutVars(env []string, names ...string) []string {
	var out []string
	for _, kv := range env {
		name, _, _ := strings.Cut(kv, "=")
		keep := true
		for _, n := range names {
			keep = keep && name != n
		}
		if keep {
			out = append(out, kv)
		}
	}
	return out
}
