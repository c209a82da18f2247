package app

import (
	"flag"
	"fmt"
	"time"
)

// FlagMinExportInterval is the flag of control and the aggregator that sets
// the shortest periodic re-export interval (exportMinInterval) any binding
// may have; both services take the same value (the chart's
// minExportInterval).
const FlagMinExportInterval = "min-export-interval"

// DefaultMinExportInterval is FlagMinExportInterval's default.
const DefaultMinExportInterval = 10 * time.Second

// BindMinExportInterval registers FlagMinExportInterval on fs.
func BindMinExportInterval(fs *flag.FlagSet, d *time.Duration) {
	fs.DurationVar(d, FlagMinExportInterval, *d,
		"Shortest exportMinInterval (period of re-exports of an unchanged snapshot) any binding may have; "+
			"a binding's 0 (exports on change only) stays allowed, and a KollectScope may raise this floor. 0 disables the floor.")
}

// ValidateMinExportInterval refuses a negative FlagMinExportInterval.
func ValidateMinExportInterval(d time.Duration) error {
	if d < 0 {
		return fmt.Errorf("--%s %v: must not be negative", FlagMinExportInterval, d)
	}
	return nil
}
