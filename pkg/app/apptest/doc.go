// Package apptest checks a service binary's flags against its golden file
// (testdata/flags.golden, app.FlagTable). It owns no flag.
package apptest
