// Package gcs is the gcs snapshot sink backend: it implements
// objectstore.Bucket on cloud.google.com/go/storage (the GCS JSON API, not
// the S3 interoperability API) and builds an objectstore.Sink from a
// KollectSnapshotSink of type gcs. The projection itself (keys, bodies,
// Parquet, the revision rule) belongs to package objectstore.
//
// # Endpoint
//
// gs://bucket[/prefix] is Google Cloud Storage. http(s)://host[:port]/bucket[/prefix]
// is a GCS-compatible server at that address (an emulator such as
// fake-gcs-server); its JSON API is at <host>/storage/v1/. Either form may
// end in ?project=<project id>, the project a missing bucket is created in
// (provisioning mode ensure); without it the project_id of credentials.json,
// then GOOGLE_CLOUD_PROJECT. The storage library's STORAGE_EMULATOR_HOST is
// honoured for gs:// endpoints, as everywhere that library is used.
//
// # Credentials and egress
//
// With secretRef, the Secret key credentials.json (a service account key,
// or an authorized_user, external_account or impersonated_service_account
// configuration) authenticates requests. Without secretRef, gs:// uses the
// Application Default Credentials, and a custom http(s) endpoint is used
// without authentication (emulators have none). Every request to the
// endpoint goes through the sink's egress.Policy transport with spec.tls;
// the OAuth2 transport is wrapped around it
// (google.golang.org/api/transport/http.NewTransport), so the storage
// client's own transport is never used. The token requests of
// credentials.json go through the policy too (its token endpoint is public);
// Application Default Credentials fetch tokens with the auth library's own
// client, since on GKE and GCE they come from the link-local metadata
// server, an address fixed by the operator's environment.
//
// # Errors
//
// 401 and 403 answers, a token endpoint refusing the credentials, a missing
// bucket and invalid requests are sink.Permanent; 429, 5xx and network
// errors are transient (the storage library retries idempotent calls
// first).
package gcs
