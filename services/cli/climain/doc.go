// Package climain is what the three command line binaries (kollect,
// kollect-dev, kollect-verify) share around their cobra commands: the exit
// status of a command (ExitError), running a command to a status (Run) and
// the process around it (Main). Each binary's main in cmd/ is one call.
package climain
