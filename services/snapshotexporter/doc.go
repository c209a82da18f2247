// Package snapshotexporter is the exporter of the snapshot family: it runs
// the shared exporter runtime (pkg/exporter) with the backends that write
// files, Git (go-git), GitLab (REST API), S3 (aws-sdk-go-v2), GCS
// (cloud.google.com/go/storage) and Azure Blob Storage (azure-sdk-for-go
// azblob). The projection of a snapshot into files lives in pkg/tree (Git,
// GitLab) and internal/objectstore (S3, GCS, Azure Blob); the
// runtime owns ordering, retries, claims, status and credentials.
package snapshotexporter
