package release

import (
	"fmt"
	"os"
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
