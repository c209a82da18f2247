// Package apptest checks a service binary's flags against its golden file
// (testdata/flags.golden, app.FlagTable) and a package's registered metrics
// against its catalogue (testdata/metrics.golden, Catalogue). It owns no
// flag and no metric.
package apptest
