// Command hello prints the version the build stamped: the images test runs
// it from inside an image to prove the stamp reaches the binary.
package main
