package control

import (
	"path/filepath"

	"sigs.k8s.io/controller-runtime/pkg/metrics/filters"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"kollect.dev/kollect/pkg/app"
)

// metricsOptions serves control's /metrics as every other service does
// (app.MetricsOptions): with Secure, over HTTPS (the certificate files, or
// a self-signed one) and only to callers the API server authenticates and
// authorizes for get on /metrics; otherwise plain HTTP.
func metricsOptions(o app.MetricsOptions) metricsserver.Options {
	m := metricsserver.Options{BindAddress: o.BindAddress}
	if !o.Secure {
		return m
	}
	m.SecureServing, m.FilterProvider = true, filters.WithAuthenticationAndAuthorization
	if o.CertFile != "" {
		// controller-runtime reads both from one folder; a missing pair makes it generate one.
		m.CertDir, m.CertName, m.KeyName = filepath.Dir(o.CertFile), filepath.Base(o.CertFile), filepath.Base(o.KeyFile)
	}
	return m
}
