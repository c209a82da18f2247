package gcs

import (
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"os"

	"cloud.google.com/go/auth/credentials"
	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// KeyCredentials is the Secret key holding the Google credentials JSON.
const KeyCredentials = "credentials.json"

// credentialTypes are the accepted "type"s of a credentials JSON.
var credentialTypes = map[string]credentials.CredType{
	"service_account":              credentials.ServiceAccount,
	"authorized_user":              credentials.AuthorizedUser,
	"external_account":             credentials.ExternalAccount,
	"impersonated_service_account": credentials.ImpersonatedServiceAccount,
}

// Backend creates gcs snapshot sinks. It implements exporter.Backend.
type Backend struct {
	// Egress is the address policy every connection to the endpoint obeys.
	Egress egress.Policy
}

// Type returns "gcs".
func (Backend) Type() string { return string(v1alpha1.SnapshotGCS) }

// New returns an objectstore.Sink writing to the bucket of cfg's endpoint.
// It makes no request to the bucket: the first Check or Write probes it
// (and creates it in provisioning mode ensure).
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds exporter.Credentials) (sink.Sink, error) {
	var layout objectstore.Layout
	spec, err := objectstore.DecodeSpec(cfg.Spec)
	if err != nil {
		return nil, err
	}
	ep, err := parseEndpoint(spec.Endpoint)
	if err != nil {
		return nil, err
	}
	if layout, err = objectstore.NewLayout(&spec, ep.Prefix); err != nil {
		return nil, err
	}
	credJSON, project, err := readSecret(ctx, &spec, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	client, err := b.client(ctx, ep, credJSON, tlsCfg)
	if err != nil {
		return nil, err
	}
	bk := &bucket{client: client, handle: client.Bucket(ep.Bucket), name: ep.Bucket, mode: v1alpha1.ProvisionEnsure,
		project: firstOf(ep.Param, project, os.Getenv("GOOGLE_CLOUD_PROJECT"))}
	if spec.Provisioning != nil && spec.Provisioning.Mode != "" {
		bk.mode = spec.Provisioning.Mode
	}
	return objectstore.NewSink(bk, layout, "gcs bucket "+ep.Bucket, client.Close), nil
}

// readSecret returns credentials.json and its project_id; nil without
// secretRef.
func readSecret(ctx context.Context, spec *v1alpha1.KollectSnapshotSinkSpec, ns string, creds exporter.Credentials) ([]byte, string, error) {
	if spec.SecretRef == nil {
		return nil, "", nil
	}
	if spec.SecretRef.Namespace != "" {
		ns = spec.SecretRef.Namespace
	}
	data, err := creds.Secret(ctx, ns, spec.SecretRef.Name)
	if err != nil {
		return nil, "", fmt.Errorf("read secretRef %s: %w", spec.SecretRef.Name, err)
	}
	js := data[KeyCredentials]
	if len(js) == 0 {
		return nil, "", sink.Permanent(fmt.Errorf("secretRef: Secret %s/%s has no key %q", ns, spec.SecretRef.Name, KeyCredentials))
	}
	var head struct {
		Type      string `json:"type"`
		ProjectID string `json:"project_id"`
	}
	if json.Unmarshal(js, &head) != nil || credentialTypes[head.Type] == "" {
		return nil, "", sink.Permanent(fmt.Errorf("secretRef: key %q of Secret %s/%s is not a service_account, "+
			"authorized_user, external_account or impersonated_service_account credentials JSON", KeyCredentials, ns, spec.SecretRef.Name))
	}
	return js, head.ProjectID, nil
}

// client returns a storage client whose every request to the endpoint goes
// through the egress policy's transport, wrapped with OAuth2 when the sink
// authenticates.
func (b Backend) client(ctx context.Context, ep objectstore.Endpoint, credJSON []byte, tlsCfg *tls.Config) (*storage.Client, error) {
	var rt http.RoundTripper = b.Egress.HTTPTransport(tlsCfg)
	var auth []option.ClientOption
	switch {
	case credJSON != nil:
		var head struct {
			Type string `json:"type"`
		}
		_ = json.Unmarshal(credJSON, &head) // checked by readSecret
		c, err := credentials.NewCredentialsFromJSON(credentialTypes[head.Type], credJSON, &credentials.DetectOptions{
			Scopes: []string{storage.ScopeReadWrite}, Client: b.Egress.HTTPClient(nil)})
		if err != nil {
			return nil, sink.Permanent(fmt.Errorf("load gcs credentials from key %q: %w", KeyCredentials, err))
		}
		auth = []option.ClientOption{option.WithAuthCredentials(c)}
	case ep.URL == "" && os.Getenv("STORAGE_EMULATOR_HOST") == "":
		auth = []option.ClientOption{option.WithScopes(storage.ScopeReadWrite)} // Application Default Credentials
	}
	if auth != nil {
		var err error
		if rt, err = htransport.NewTransport(ctx, rt, auth...); err != nil {
			return nil, sink.Permanent(fmt.Errorf("load gcs credentials: %w", err))
		}
	}
	opts := []option.ClientOption{option.WithHTTPClient(&http.Client{Transport: rt}), storage.WithJSONReads()}
	if ep.URL != "" {
		opts = append(opts, option.WithEndpoint(ep.URL+"/storage/v1/"))
	}
	client, err := storage.NewClient(ctx, opts...)
	if err != nil {
		return nil, sink.Permanent(fmt.Errorf("create gcs client: %w", err))
	}
	return client, nil
}

func firstOf(values ...string) string {
	for _, v := range values {
		if v != "" {
			return v
		}
	}
	return ""
}
