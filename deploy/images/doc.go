// Package images assembles Kollect's container images without a daemon: a
// base layer made from files this build controls (passwd and group with the
// nonroot user 65532, the build machine's CA bundle, /tmp; no shell), one
// layer holding a static binary, OCI labels, and a multi-platform index per
// binary, written to an OCI image layout or pushed to a registry with
// go-containerregistry. Every byte derives from the inputs and the commit
// time, so a rebuild of the same commit is byte-identical. It does not build
// the binaries (deploy/release does).
package images
