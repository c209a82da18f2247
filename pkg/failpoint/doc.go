// Package failpoint holds the crash points compiled into every Kollect
// binary for the fault-injection suite (loadtest/fault_*.go, `make faults`).
// They are inert unless the environment variable KOLLECT_FAILPOINT names
// them, so a production process pays one map lookup per point it passes.
//
// KOLLECT_FAILPOINT is a ';'-separated list of name=action[@n]:
//
//	KOLLECT_FAILPOINT='exporter.afterSinkWrite=exit'       # the first time
//	KOLLECT_FAILPOINT='collector.afterRowPut=exit@100'     # the 100th time
//	KOLLECT_FAILPOINT='aggregator.afterObjectPut=stop'     # SIGSTOP itself
//
// Actions: exit kills the process with SIGKILL (no deferred function, no
// flush: what a crash or an OOM kill leaves behind), stop sends it SIGSTOP
// (a paused process, resumed by whoever sent SIGCONT). Before acting, the
// point writes one line "kollect failpoint <name> <action>" to standard
// error so the suite can tell which point fired.
package failpoint
