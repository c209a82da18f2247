package bigquery

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"regexp"
	"time"

	"cloud.google.com/go/bigquery"
	"google.golang.org/api/option"
	htransport "google.golang.org/api/transport/http"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/googlecreds"
	"kollect.dev/kollect/pkg/sink"
)

// CredentialsKey is the Secret key holding a service account key.
const CredentialsKey = "credentials.json"

var locationPattern = regexp.MustCompile(`^[A-Za-z0-9-]{1,64}$`)

// Backend creates bigquery sinks.
type Backend struct {
	// Egress is the address policy every API request is dialed through.
	Egress egress.Policy
	// Endpoint overrides the API endpoint of every sink (an emulator, in
	// tests); requests are then sent without authentication unless the
	// sink names a Secret. spec.endpoint does the same per sink.
	Endpoint string
	// TokenURL replaces Google's token endpoint for every sink (tests); a
	// service account key may name only this one. Empty means
	// googlecreds.GoogleTokenURL.
	TokenURL string
	// NoTransactions runs the statements of an export one by one instead
	// of in one multi-statement transaction, for BigQuery-compatible
	// servers without BEGIN TRANSACTION. Readers may then see an inventory
	// half-written; the state is still recorded last.
	NoTransactions bool
}

// Type returns "bigquery".
func (b Backend) Type() string { return string(v1alpha1.DatabaseBigQuery) }

// New returns a sink writing to the table cfg names. It makes no request:
// provisioning happens on the first write or check.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	spec, err := DecodeSpec(cfg.Spec)
	if err != nil {
		return nil, err
	}
	key, err := b.credentials(ctx, spec, cfg.Namespace, creds)
	if err != nil {
		return nil, err
	}
	project := spec.BigQuery.Project
	switch {
	case project == "" && key != nil:
		if key.ProjectID == "" {
			return nil, sink.Permanent(errors.New("spec.bigquery.project: not set and the credentials.json key names no project_id"))
		}
		project = key.ProjectID
	case project == "":
		// Detection reads the exporter's own default credentials.
		if err := backend.AmbientCredentials(creds, cfg.Namespace); err != nil {
			return nil, fmt.Errorf("spec.bigquery.project: not set, and detecting it needs the exporter's default credentials: %w", err)
		}
		project = bigquery.DetectProjectID
	}
	httpClient, err := b.httpClient(ctx, spec, cfg.Namespace, creds, key)
	if err != nil {
		return nil, err
	}
	opts := []option.ClientOption{option.WithHTTPClient(httpClient)}
	if ep := b.endpoint(spec); ep != "" {
		opts = append(opts, option.WithEndpoint(ep))
	}
	client, err := bigquery.NewClient(ctx, project, opts...)
	if err != nil {
		return nil, classify(ctx, "create bigquery client", err)
	}
	if spec.BigQuery.Location != "" {
		client.Location = spec.BigQuery.Location
	}
	data := tableRef{Project: client.Project(), Dataset: spec.BigQuery.Dataset, Table: spec.BigQuery.Table}
	if err := data.validate(); err != nil {
		_ = client.Close()
		return nil, err
	}
	history := spec.BigQuery.History != nil && spec.BigQuery.History.Enabled
	if history {
		for _, t := range []tableRef{data.with(data.Table + HistorySuffix), data.with(data.Table + RevisionsSuffix)} {
			if err := t.validate(); err != nil {
				_ = client.Close()
				return nil, sink.Permanent(fmt.Errorf("spec.bigquery.history: the table %s.. is too long for its history tables: %w", data.Table[:min(len(data.Table), 32)], err))
			}
		}
	}
	return &Sink{client: client, data: data, location: spec.BigQuery.Location, transactions: !b.NoTransactions, history: history, altered: map[string]time.Time{},
		ensure: spec.Provisioning == nil || spec.Provisioning.Mode != v1alpha1.ProvisionExisting}, nil
}

// DecodeSpec decodes a database sink spec of type bigquery
// (backend.DecodeSpec) and validates the table reference without
// contacting any server; errors are sink.Permanent and name the field.
func DecodeSpec(raw json.RawMessage) (v1alpha1.KollectDatabaseSinkSpec, error) {
	spec, err := backend.DecodeSpec[v1alpha1.KollectDatabaseSinkSpec](busv1.SinkConfig{Spec: raw}, string(v1alpha1.DatabaseBigQuery))
	if err != nil {
		return spec, err
	}
	if spec.BigQuery.Location != "" && !locationPattern.MatchString(spec.BigQuery.Location) {
		return spec, sink.Permanent(fmt.Errorf("spec.bigquery.location: %q is not a valid location", spec.BigQuery.Location))
	}
	ref := tableRef{Project: spec.BigQuery.Project, Dataset: spec.BigQuery.Dataset, Table: spec.BigQuery.Table}
	if ref.Project == "" {
		ref.Project = "detected-later" // checked again once known
	}
	return spec, ref.validate()
}

// endpoint is the API endpoint override, if any.
func (b Backend) endpoint(spec v1alpha1.KollectDatabaseSinkSpec) string {
	if b.Endpoint != "" {
		return b.Endpoint
	}
	return spec.Endpoint
}

// credentials reads the service account key of secretRef, or returns nil
// without a secretRef. Only a service_account key naming Google's token
// endpoint is accepted, checked before the auth library sees it.
func (b Backend) credentials(ctx context.Context, spec v1alpha1.KollectDatabaseSinkSpec, namespace string, creds backend.Credentials) (*googlecreds.Key, error) {
	data, err := backend.SecretData(ctx, creds, namespace, spec.SecretRef, CredentialsKey)
	if err != nil || data == nil {
		return nil, err
	}
	ref, js := spec.SecretRef, data[CredentialsKey]
	key, err := googlecreds.Parse(js, googlecreds.Options{TokenURL: b.TokenURL})
	if err != nil {
		return nil, fmt.Errorf("spec.secretRef: Secret %s: %w", ref.Name, err)
	}
	return key, nil
}

// httpClient is the client of every API request: the egress policy's
// transport, wrapped with OAuth2 credentials (the key, whose token requests
// go through the policy too, or the default credentials where the operator
// allows ambient credentials for the namespace) unless an endpoint override
// without a key is used.
func (b Backend) httpClient(ctx context.Context, spec v1alpha1.KollectDatabaseSinkSpec, namespace string, creds backend.Credentials, key *googlecreds.Key) (*http.Client, error) {
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, namespace, creds)
	if err != nil {
		return nil, err
	}
	base := boundedBodies{next: b.Egress.HTTPTransport(tlsCfg), max: maxAnswerBytes}
	var auth option.ClientOption
	switch {
	case key != nil:
		c, err := key.Credentials([]string{bigquery.Scope}, b.Egress.HTTPClient(nil))
		if err != nil {
			return nil, fmt.Errorf("load bigquery credentials: %w", err)
		}
		auth = option.WithAuthCredentials(c)
	case b.endpoint(spec) != "":
		return &http.Client{Transport: base}, nil
	default:
		if err := backend.AmbientCredentials(creds, namespace); err != nil {
			return nil, err
		}
		auth = option.WithScopes(bigquery.Scope) // Application Default Credentials
	}
	rt, err := htransport.NewTransport(ctx, base, auth)
	if err != nil {
		// The error may quote the default credentials' content: never pass it on.
		return nil, sink.Permanent(errors.New("load bigquery credentials: the default credentials are not usable"))
	}
	return &http.Client{Transport: rt}, nil
}
