package release

import (
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
)

// chartImageLine is an image line of the artifacthub.io/images annotation
// naming one of Kollect's own images (the registry the chart defaults to).
var chartImageLine = regexp.MustCompile(`(?m)^(\s+image: ghcr\.io/kollect-dev/[a-z0-9-]+):[^\s]+$`)

// stampChartImages sets the tag of Kollect's own images in a Chart.yaml's
// artifacthub.io/images annotation to version, the tag the release's images
// and the packaged chart's appVersion carry, so Artifact Hub lists the images
// the chart really installs. Other images (NATS) keep their pinned tags. A
// chart without the annotation is left alone. The file is the release's
// extracted copy, never the work tree's.
func stampChartImages(chartYAML, version string) error {
	b, err := os.ReadFile(chartYAML) //nolint:gosec // G304: the release checkout's Chart.yaml
	if err != nil {
		return fmt.Errorf("stamp chart images: %w", err)
	}
	s := string(b)
	if !strings.Contains(s, "artifacthub.io/images:") {
		return nil
	}
	if chartImageLine.FindString(s) == "" {
		return fmt.Errorf("stamp chart images: %s has an artifacthub.io/images annotation without a ghcr.io/kollect-dev image", chartYAML)
	}
	return os.WriteFile(chartYAML, []byte(chartImageLine.ReplaceAllString(s, "${1}:"+version)), 0o644) //nolint:gosec // G306: a chart file, world-readable like the rest of the chart
}

// chartAppVersion is the appVersion line of a Chart.yaml.
var chartAppVersion = regexp.MustCompile(`(?m)^appVersion:\s*"?([^"\s]+)"?\s*$`)

// ChartTag is the image tag the kollect chart of the work tree repo installs
// by default: v<appVersion> of charts/kollect/Chart.yaml (the chart's
// kollect.imageTag; `make image-tag` prints the same). make images, and this
// package's images command without -version, tag what they build with it.
func ChartTag(repo string) (string, error) {
	b, err := os.ReadFile(filepath.Join(repo, "charts", "kollect", "Chart.yaml")) //nolint:gosec // G304: the work tree's chart
	if err != nil {
		return "", fmt.Errorf("read the chart's appVersion: %w", err)
	}
	m := chartAppVersion.FindSubmatch(b)
	if m == nil {
		return "", fmt.Errorf("charts/kollect/Chart.yaml of %s has no appVersion", repo)
	}
	return "v" + strings.TrimPrefix(string(m[1]), "v"), nil
}
