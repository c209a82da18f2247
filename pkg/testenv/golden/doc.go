// Package golden compares what a test produced with a file in the tree: a
// golden file under testdata, a generated document, a chart file. A test
// binary that imports it has one -update flag, which rewrites those files
// (`make generate` passes it); a package whose tests write other files on
// -update asks Update.
//
// It imports only the standard library and go-cmp, so that a package's
// tests can use it without the peers of pkg/testenv.
package golden
