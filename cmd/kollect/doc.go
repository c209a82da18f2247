// Command kollect is Kollect's command line tool; `go install
// kollect.dev/kollect/cmd/kollect@vX` installs it as kollect. The krew
// plugin ships the same program as kubectl-kollect.
package main
