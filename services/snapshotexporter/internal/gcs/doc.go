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
// With secretRef, the Secret key credentials.json authenticates requests:
// a service_account key naming Google's token endpoint, or an
// authorized_user file (pkg/googlecreds refuses every other type, such as
// external_account, before the auth library sees it: those make the
// process read files or call URLs the file chooses). Without secretRef,
// gs:// uses the exporter's Application Default Credentials, only where the
// operator allows ambient credentials for the sink's namespace
// (backend.AmbientCredentials); a custom http(s) endpoint is used without
// authentication (emulators have none). Every request to the endpoint goes
// through the sink's egress.Policy transport with spec.tls; the OAuth2
// transport is wrapped around it
// (google.golang.org/api/transport/http.NewTransport), and the storage
// client is told not to look up credentials itself, so its own transport
// and the default credentials are never used otherwise. The token requests
// of credentials.json go through the policy too; Application Default
// Credentials fetch tokens with the auth library's own client, since on
// GKE and GCE they come from the link-local metadata server, an address
// fixed by the operator's environment.
//
// # Errors
//
// 401 and 403 answers, a token endpoint refusing the credentials, a missing
// bucket and invalid requests are sink.Permanent; 429, 5xx and network
// errors are transient (the storage library retries idempotent calls
// first).
package gcs
