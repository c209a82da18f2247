// Package childproc supervises child processes the way Kollect's test
// peers (pkg/testenv) and the demo's services (deploy/demo) need: each in
// its own process group, killed with the parent (Pdeathsig), its output
// appended to a log file whose last lines go into error messages; waited on
// for readiness with a deadline; stopped with a signal to the leader, then
// SIGKILL to the whole group after a grace period, so that no grandchild
// outlives it.
//
// It is Linux-only like its users (process groups, Pdeathsig). It does not
// restart processes, and it does not build or find binaries.
package childproc
