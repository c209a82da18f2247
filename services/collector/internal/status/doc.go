// Package status publishes the collector's StatusReports about Targets on the
// bus. Targets are marked when their status may have changed; every interval
// the Reporter builds the report of each marked Target and publishes it only
// when it differs from the last one it published, so a Target is reported at
// most once per interval however often it changes. A failed publish is
// retried on the next interval.
//
// status decides no status content: the Source (the engine) builds reports.
package status
