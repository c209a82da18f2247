// Package testenv starts the real peers Kollect is tested against: a
// kube-apiserver and etcd (envtest on the binaries built by `make tools`), an
// embedded NATS JetStream server, a throwaway PostgreSQL cluster, an S3 server
// (versitygw), a GCS emulator (fake-gcs-server), an Azure Blob Storage emulator
// (Azurite, run by node), a MongoDB wire-protocol server
// (FerretDB) and a Git smart-HTTP server; the one accepted fake, an
// httptest GitLab REST API over real bare repositories (StartGitLab), since
// no GitLab server can run here; and a TCP proxy (StartProxy) that tests
// take down and bring back to simulate an outage of any peer.
//
// Every peer listens on a free loopback port, is stopped by t.Cleanup and
// leaves nothing running. A missing tool fails the test with the command that
// builds it; nothing is ever skipped. The demo reuses the same starters.
//
// testenv owns no production behaviour: only tests, the demo and load tests
// import it.
package testenv
