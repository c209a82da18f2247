package azureblob

import (
	"context"
	"fmt"
	"net/url"
	"os"
	"slices"
	"strings"

	"github.com/Azure/azure-sdk-for-go/sdk/azidentity"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
)

// Secret keys read from spec.secretRef.
const (
	// KeyAccountName is the storage account of a shared key; optional, it
	// must equal the endpoint's account when set.
	KeyAccountName = "accountName"
	// KeyAccountKey is the storage account key (base64, as the portal
	// shows it): shared-key authorisation.
	KeyAccountKey = "accountKey"
	// KeySASToken is a shared access signature (the query string, with or
	// without the leading "?"): SAS authorisation.
	KeySASToken = "sasToken"
)

// credential is how a sink authorises its requests: exactly one of the
// fields is set.
type credential struct {
	sharedKey *container.SharedKeyCredential
	sas       string // the query string, without "?"
	identity  *azidentity.WorkloadIdentityCredential
}

// resolveCredential returns the sink's credential: the Secret's shared key
// or SAS token with secretRef, the exporter's workload identity without it
// (only where the operator allows ambient credentials, and only toward an
// Azure storage host or one the operator lists: identityHost; the
// identity's settings, AZURE_CLIENT_ID, AZURE_TENANT_ID and
// AZURE_FEDERATED_TOKEN_FILE, are not looked at otherwise).
func resolveCredential(ctx context.Context, spec *v1alpha1.KollectSnapshotSinkSpec, ns string, ep endpoint,
	creds backend.Credentials) (credential, error) {
	auth := v1alpha1.AzureBlobAuth("")
	if spec.AzureBlob != nil {
		auth = spec.AzureBlob.Auth
	}
	if spec.SecretRef == nil {
		if auth != "" && auth != v1alpha1.AzureBlobWorkloadIdentity {
			return credential{}, sink.Permanent(fmt.Errorf("invalid sink spec: azureBlob.auth %s needs secretRef", auth))
		}
		if err := backend.AmbientCredentials(creds, ns); err != nil {
			return credential{}, err
		}
		if strings.HasPrefix(ep.serviceURL, "http://") {
			// The SDK sends bearer tokens over TLS only.
			return credential{}, sink.Permanent(fmt.Errorf("invalid sink spec: workload identity needs an https:// endpoint, not %s", ep.serviceURL))
		}
		if err := identityHost(ep, creds); err != nil {
			return credential{}, err
		}
		id, err := workloadIdentity()
		return credential{identity: id}, err
	}
	if auth == v1alpha1.AzureBlobWorkloadIdentity {
		return credential{}, sink.Permanent(fmt.Errorf("invalid sink spec: azureBlob.auth workloadIdentity takes no secretRef"))
	}
	data, ref, err := readSecret(ctx, spec.SecretRef, ns, creds)
	if err != nil {
		return credential{}, err
	}
	if auth == "" {
		switch {
		case len(data[KeyAccountKey]) > 0:
			auth = v1alpha1.AzureBlobSharedKey
		case len(data[KeySASToken]) > 0:
			auth = v1alpha1.AzureBlobSAS
		default:
			return credential{}, sink.Permanent(fmt.Errorf("secretRef: Secret %s has neither key %q nor key %q", ref, KeyAccountKey, KeySASToken))
		}
	}
	if auth == v1alpha1.AzureBlobSharedKey {
		return sharedKey(data, ref, ep.account)
	}
	return sasToken(data, ref)
}

// workloadIdentity returns the exporter's workload identity, from the
// settings the AKS workload identity webhook injects into its pod.
func workloadIdentity() (*azidentity.WorkloadIdentityCredential, error) {
	opts := &azidentity.WorkloadIdentityCredentialOptions{ClientID: os.Getenv("AZURE_CLIENT_ID"),
		TenantID: os.Getenv("AZURE_TENANT_ID"), TokenFilePath: os.Getenv("AZURE_FEDERATED_TOKEN_FILE")}
	var missing []string
	for name, v := range map[string]string{"AZURE_CLIENT_ID": opts.ClientID, "AZURE_TENANT_ID": opts.TenantID,
		"AZURE_FEDERATED_TOKEN_FILE": opts.TokenFilePath} {
		if v == "" {
			missing = append(missing, name)
		}
	}
	if len(missing) > 0 {
		slices.Sort(missing)
		return nil, sink.Permanent(fmt.Errorf("the exporter has no workload identity: %s unset "+
			"(the AKS workload identity webhook sets them on pods of a labelled service account)", strings.Join(missing, ", ")))
	}
	id, err := azidentity.NewWorkloadIdentityCredential(opts)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("load the exporter's workload identity: %w", err))
	}
	return id, nil
}

// readSecret returns the data of the Secret ref names and "ns/name" for
// messages.
func readSecret(ctx context.Context, ref *v1alpha1.SecretReference, ns string, creds backend.Credentials) (map[string][]byte, string, error) {
	if ref.Namespace != "" {
		ns = ref.Namespace
	}
	data, err := creds.Secret(ctx, ns, ref.Name)
	if err != nil {
		return nil, "", fmt.Errorf("read secretRef %s: %w", ref.Name, err)
	}
	return data, ns + "/" + ref.Name, nil
}

func sharedKey(data map[string][]byte, ref, account string) (credential, error) {
	key := strings.TrimSpace(string(data[KeyAccountKey]))
	if key == "" {
		return credential{}, missingKey(ref, KeyAccountKey)
	}
	if name := strings.TrimSpace(string(data[KeyAccountName])); name != "" && name != account {
		return credential{}, sink.Permanent(fmt.Errorf("secretRef: Secret %s key %q names account %q, the endpoint account %q",
			ref, KeyAccountName, name, account))
	}
	c, err := container.NewSharedKeyCredential(account, key)
	if err != nil {
		// The SDK's message would quote the key's decoding error only.
		return credential{}, sink.Permanent(fmt.Errorf("secretRef: Secret %s key %q is not a base64 account key", ref, KeyAccountKey))
	}
	return credential{sharedKey: c}, nil
}

func sasToken(data map[string][]byte, ref string) (credential, error) {
	token := strings.TrimPrefix(strings.TrimSpace(string(data[KeySASToken])), "?")
	if token == "" {
		return credential{}, missingKey(ref, KeySASToken)
	}
	q, err := url.ParseQuery(token)
	if err != nil || q.Get("sig") == "" {
		return credential{}, sink.Permanent(fmt.Errorf("secretRef: Secret %s key %q is not a SAS token (a query string with sig=)", ref, KeySASToken))
	}
	return credential{sas: token}, nil
}

func missingKey(ref, key string) error {
	return sink.Permanent(fmt.Errorf("secretRef: Secret %s has no key %q", ref, key))
}

// auth names the method of c.
func (c credential) auth() v1alpha1.AzureBlobAuth {
	switch {
	case c.sharedKey != nil:
		return v1alpha1.AzureBlobSharedKey
	case c.sas != "":
		return v1alpha1.AzureBlobSAS
	}
	return v1alpha1.AzureBlobWorkloadIdentity
}
