// Command kollect-verify recomputes the checksums of the revisions a sink
// holds (Git, PostgreSQL, S3, GCS) and reports the first that does not
// match; `kollect verify` runs it.
package main
