// Command ferretdb serves the MongoDB wire protocol on a SQLite folder, for tests.
//
// It embeds github.com/FerretDB/FerretDB/ferretdb: the upstream command panics at
// start when built with `go install` (its embedded version file is empty).
package main
