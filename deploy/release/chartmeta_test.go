package release

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestStampChartImagesTagsKollectImagesWithTheVersion stamps the real
// chart's Chart.yaml: every Kollect image names the release version, NATS
// keeps its pinned tag, and nothing else of the file changes.
func TestStampChartImagesTagsKollectImagesWithTheVersion(t *testing.T) {
	orig, err := os.ReadFile(filepath.Join("..", "..", "charts", "kollect", "Chart.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	path := filepath.Join(t.TempDir(), "Chart.yaml")
	if err := os.WriteFile(path, orig, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stampChartImages(path, "v1.4.2"); err != nil {
		t.Fatal(err)
	}
	got, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	kollect, nats := 0, 0
	for _, line := range strings.Split(string(got), "\n") {
		img, ok := strings.CutPrefix(strings.TrimSpace(line), "image: ")
		if !ok {
			continue
		}
		switch {
		case strings.HasPrefix(img, "ghcr.io/kollect-dev/"):
			kollect++
			if !strings.HasSuffix(img, ":v1.4.2") {
				t.Errorf("image %s: want the release tag v1.4.2", img)
			}
		case strings.HasPrefix(img, "nats:"):
			nats++
			if !strings.Contains(string(orig), "image: "+img+"\n") {
				t.Errorf("NATS image changed to %s", img)
			}
		}
	}
	// Every service image the chart lists (six services and the optional query service).
	if want := strings.Count(string(orig), "image: ghcr.io/kollect-dev/"); kollect != want || want < 7 || nats != 1 {
		t.Errorf("stamped %d Kollect and %d NATS images, want %d (at least 7) and 1:\n%s", kollect, nats, want, got)
	}
	if a, b := strings.Count(string(orig), "\n"), strings.Count(string(got), "\n"); a != b {
		t.Errorf("stamping changed the line count from %d to %d", a, b)
	}
}

// TestStampChartImagesRefusesAnAnnotationWithoutKollectImages: a renamed
// registry would silently leave stale tags, so it is an error.
func TestStampChartImagesRefusesAnAnnotationWithoutKollectImages(t *testing.T) {
	path := filepath.Join(t.TempDir(), "Chart.yaml")
	body := "name: x\nannotations:\n  artifacthub.io/images: |\n    - name: a\n      image: quay.io/other/a:1\n"
	if err := os.WriteFile(path, []byte(body), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stampChartImages(path, "v1.0.0"); err == nil || !strings.Contains(err.Error(), "ghcr.io/kollect-dev") {
		t.Errorf("stampChartImages = %v, want an error naming ghcr.io/kollect-dev", err)
	}
	path2 := filepath.Join(t.TempDir(), "Chart.yaml")
	if err := os.WriteFile(path2, []byte("name: crds\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := stampChartImages(path2, "v1.0.0"); err != nil {
		t.Errorf("a chart without the annotation: %v", err)
	}
}
