package app

import (
	"errors"
	"runtime"

	"github.com/prometheus/client_golang/prometheus"

	"kollect.dev/kollect/pkg/version"
)

// BuildInfoMetric is the gauge every service serves: 1, labelled with the
// version and commit the build stamped (pkg/version) and the Go version,
// so a dashboard shows which build runs where.
const BuildInfoMetric = "kollect_build_info"

// BuildInfo returns the kollect_build_info gauge.
func BuildInfo() prometheus.Collector {
	g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: BuildInfoMetric,
		Help: "Always 1; its labels name the running build: version, commit and Go version."},
		[]string{"version", "commit", "goversion"})
	g.WithLabelValues(version.Version, version.Commit, runtime.Version()).Set(1)
	return g
}

// RegisterBuildInfo registers BuildInfo in reg; a registry that has it
// already (controller-runtime's global one, when a process starts control
// twice) is left as it is.
func RegisterBuildInfo(reg prometheus.Registerer) error {
	err := reg.Register(BuildInfo())
	if are := (prometheus.AlreadyRegisteredError{}); errors.As(err, &are) {
		return nil
	}
	return err
}
