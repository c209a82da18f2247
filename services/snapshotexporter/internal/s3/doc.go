// Package s3 is the s3 snapshot sink backend: it implements
// objectstore.Bucket on the AWS SDK for Go v2 and builds an objectstore.Sink
// from a KollectSnapshotSink of type s3. The projection itself (keys,
// bodies, Parquet, the revision rule) belongs to package objectstore.
//
// # Endpoint
//
// s3://bucket[/prefix] is AWS S3 with the SDK's own addressing;
// https://host[:port]/bucket[/prefix] (or http://) is any S3 server at that
// address, addressed path-style (versitygw, MinIO, Ceph RGW, ...). Either
// form may end in ?region=<region>.
//
// # Region
//
// API.md has no region field, so the region is, in order: the endpoint's
// ?region= query parameter, the Secret key region, the SDK's default
// configuration (AWS_REGION, AWS_DEFAULT_REGION, the shared config file),
// and us-east-1.
//
// # Credentials and egress
//
// With secretRef, the Secret's accessKeyID and secretAccessKey (and
// optionally sessionToken) sign requests; without it the SDK's default
// credential chain is used (environment, web identity, shared files, ECS,
// EC2 instance metadata), the exporter's own identity: only for sinks of
// the namespaces the operator allows (backend.AmbientCredentials), else
// the sink is refused with CredentialsDenied before the chain is loaded. Every request to the S3 endpoint goes through the
// sink's egress.Policy HTTP client with the TLS configuration of spec.tls.
// The default chain's own credential requests (instance metadata at a
// link-local address, STS) use the SDK's client: those endpoints are fixed
// by the operator's environment, not by the sink's spec.
//
// # Errors
//
// Refused credentials (InvalidAccessKeyId, SignatureDoesNotMatch,
// AccessDenied, any 401 or 403), a missing bucket and an invalid request
// are sink.Permanent; 5xx answers, timeouts and network errors are
// transient. Provisioning mode ensure creates a missing bucket on the first
// write or connection test; existing reports it as a permanent error naming
// the bucket.
package s3
