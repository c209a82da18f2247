// Package apptest checks a service binary's flags against its golden file
// (testdata/flags.golden, app.FlagTable) and a package's registered metrics
// against its catalogue (testdata/metrics.golden, Catalogue). It owns no
// flag (-update is pkg/testenv/golden's) and no metric.
package apptest
