// Package target compiles a KollectTarget or KollectClusterTarget, with its
// KollectProfile and Scope resolved, into the compiled-config entry control
// writes to the bus (Config*), and that entry into the form the collector and
// `kollect collect` evaluate objects with (Compile). Both directions are pure
// functions, so control, the collector, the command line and tests share them.
//
// target owns the row a selected object becomes; it does not list, watch or
// publish anything, and it does not decide whether a user may reach a
// namespace (control's admission does).
package target
