// Package azureblob is the azureblob snapshot sink backend: it implements
// objectstore.Bucket on Azure Blob Storage containers with
// github.com/Azure/azure-sdk-for-go/sdk/storage/azblob and builds an
// objectstore.Sink from a KollectSnapshotSink of type azureblob. The
// projection itself (keys, bodies, Parquet, the state object, the revision
// rule, fencing, drift) belongs to package objectstore; objects are block
// blobs written in one Put Blob each, except a streamed JSON or NDJSON
// body over one block (PutStream: staged blocks and one Put Block List),
// and an object's version is its ETag.
//
// # Endpoint
//
// azblob://account/container[/prefix] is a container of Azure's public
// cloud (https://account.blob.core.windows.net).
// https://account.blob.<suffix>/container[/prefix] names the blob service
// host of any Azure cloud, the account being its first label.
// http(s)://host[:port]/account/container[/prefix] is a path-style server
// at that address (an emulator such as Azurite). No form takes a query:
// a SAS token belongs in the Secret.
//
// # Credentials and egress
//
// With secretRef, the Secret's accountKey signs requests (shared key; the
// optional accountName must equal the endpoint's account), or its sasToken
// is appended to every request (SAS). spec.azureBlob.auth may name the
// method (sharedKey, sas); by default accountKey wins when both keys are
// there. Without secretRef the sink uses the exporter's Microsoft Entra
// workload identity (azidentity.WorkloadIdentityCredential: AZURE_CLIENT_ID,
// AZURE_TENANT_ID and AZURE_FEDERATED_TOKEN_FILE, which the AKS workload
// identity webhook sets), only where the operator allows ambient
// credentials for the sink's namespace (backend.AmbientCredentials), else
// the sink is refused with CredentialsDenied before the identity is
// loaded. Every request to the endpoint goes through the sink's
// egress.Policy HTTP client with spec.tls; the identity's token requests
// go to the Entra authority the operator's environment names, with the
// SDK's client.
//
// # Provisioning
//
// The first Check or Write lists one blob of the container: provisioning
// mode ensure creates a missing container (Create Container), existing
// reports it as a permanent error naming it.
//
// # Fencing
//
// Conditional puts use If-Match with the ETag the state recorded, and
// If-None-Match: * for an absent state; Azure answers a failed If-Match with
// 412 ConditionNotMet and a failed If-None-Match: * with 409
// BlobAlreadyExists, both objectstore.ErrPrecondition.
//
// # Errors
//
// 401 and 403 answers (AuthenticationFailed, AuthorizationFailure, ...),
// the identity provider refusing the workload identity, a missing
// container and other 4xx answers are sink.Permanent; 408, 409, 429, 5xx
// and network errors are transient (the SDK retries 408, 429, 5xx and
// network errors first, three times, but never an egress refusal). Messages carry the HTTP status and the
// storage error code on one line, never a request's query (a SAS token).
package azureblob
