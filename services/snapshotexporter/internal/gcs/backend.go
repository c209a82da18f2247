package gcs

import (
	"cmp"
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"os"

	"cloud.google.com/go/storage"
	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/googlecreds"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// KeyCredentials is the Secret key holding the Google credentials JSON.
const KeyCredentials = "credentials.json"

// credentialTypes are the accepted "type"s of a credentials JSON: neither
// makes the exporter read files or call a URL the file chooses.
var credentialTypes = []string{googlecreds.ServiceAccount, googlecreds.AuthorizedUser}

// Backend creates gcs snapshot sinks. It implements backend.Backend.
type Backend struct {
	// Egress is the address policy every connection to the endpoint obeys.
	Egress egress.Policy
	// TokenURL replaces Google's token endpoint for every sink (tests: an
	// emulator's); a service account key may name only this one. Empty
	// means googlecreds.GoogleTokenURL.
	TokenURL string
}

// Type returns "gcs".
func (Backend) Type() string { return string(v1alpha1.SnapshotGCS) }

// New returns an objectstore.Sink writing to the bucket of cfg's endpoint.
// It makes no request to the bucket: the first Check or Write probes it
// (and creates it in provisioning mode ensure).
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	var layout objectstore.Layout
	spec, err := backend.DecodeSpec[v1alpha1.KollectSnapshotSinkSpec](cfg, string(v1alpha1.SnapshotGCS))
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
	key, err := b.readSecret(ctx, &spec, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	if key == nil && ambient(ep) {
		if err := backend.AmbientCredentials(creds, cfg.Namespace); err != nil {
			return nil, err
		}
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	client, err := b.client(ctx, ep, key, tlsCfg)
	if err != nil {
		return nil, err
	}
	project := ""
	if key != nil {
		project = key.ProjectID
	}
	bk := &bucket{client: client, handle: client.Bucket(ep.Bucket), name: ep.Bucket, mode: v1alpha1.ProvisionEnsure,
		project: firstOf(ep.Param, project, os.Getenv("GOOGLE_CLOUD_PROJECT"))}
	if spec.Provisioning != nil && spec.Provisioning.Mode != "" {
		bk.mode = spec.Provisioning.Mode
	}
	return objectstore.NewSink(bk, layout, "gcs bucket "+ep.Bucket, client.Close), nil
}

// readSecret returns the accepted credentials.json of secretRef; nil
// without secretRef. A credential type that would make the exporter read a
// file or call a URL the tenant chose is refused before the auth library
// sees it.
func (b Backend) readSecret(ctx context.Context, spec *v1alpha1.KollectSnapshotSinkSpec, ns string, creds backend.Credentials) (*googlecreds.Key, error) {
	data, err := backend.SecretData(ctx, creds, ns, spec.SecretRef, KeyCredentials)
	if err != nil || data == nil {
		return nil, err
	}
	ns = cmp.Or(spec.SecretRef.Namespace, ns)
	key, err := googlecreds.Parse(data[KeyCredentials], googlecreds.Options{Types: credentialTypes, TokenURL: b.TokenURL})
	if err != nil {
		return nil, fmt.Errorf("secretRef: Secret %s/%s: %w", ns, spec.SecretRef.Name, err)
	}
	return key, nil
}

// ambient reports whether a sink of ep without credentials would use the
// exporter's Application Default Credentials: gs:// outside an emulator.
// A custom http(s) endpoint is used without authentication.
func ambient(ep objectstore.Endpoint) bool {
	return ep.URL == "" && os.Getenv("STORAGE_EMULATOR_HOST") == ""
}

// client returns a storage client whose every request to the endpoint goes
// through the egress policy's transport, wrapped with OAuth2 when the sink
// authenticates: with key (its token requests through the policy too), or
// with the Application Default Credentials when ambient(ep) (the caller
// checked that the sink may).
func (b Backend) client(ctx context.Context, ep objectstore.Endpoint, key *googlecreds.Key, tlsCfg *tls.Config) (*storage.Client, error) {
	var rt http.RoundTripper = b.Egress.HTTPTransport(tlsCfg)
	var auth []option.ClientOption
	switch {
	case key != nil:
		c, err := key.Credentials([]string{storage.ScopeReadWrite}, b.Egress.HTTPClient(nil))
		if err != nil {
			return nil, fmt.Errorf("load gcs credentials from key %q: %w", KeyCredentials, err)
		}
		auth = []option.ClientOption{option.WithAuthCredentials(c)}
	case ambient(ep):
		auth = []option.ClientOption{option.WithScopes(storage.ScopeReadWrite)} // Application Default Credentials
	}
	if auth != nil {
		var err error
		if rt, err = htransport.NewTransport(ctx, rt, auth...); err != nil {
			return nil, sink.Permanent(fmt.Errorf("load gcs credentials: %w", err))
		}
	}
	// WithoutAuthentication: rt authenticates; without it the storage
	// library would look up the default credentials itself, even for a
	// sink that must not use them.
	opts := []option.ClientOption{option.WithHTTPClient(&http.Client{Transport: rt}), option.WithoutAuthentication(),
		storage.WithJSONReads()}
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
