// Package command is the kollect-verify command line: `kollect verify git`,
// `postgres`, `s3` and `gcs` around the checks of
// services/cli/internal/verify. It is a binary of its own because reading a
// sink links that sink's client (go-git, pgx, the AWS and Google SDKs),
// which the everyday kollect CLI does not; `kollect verify` runs it
// (services/cli/plugin.go). It does not talk to Kubernetes.
package command
