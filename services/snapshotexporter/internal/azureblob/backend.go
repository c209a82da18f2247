package azureblob

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"net/http"
	"slices"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// Backend creates azureblob snapshot sinks. It implements backend.Backend.
type Backend struct {
	// Egress is the address policy every connection to the endpoint obeys.
	Egress egress.Policy
}

// Type returns "azureblob".
func (Backend) Type() string { return string(v1alpha1.SnapshotAzureBlob) }

// New returns an objectstore.Sink writing to the container of cfg's
// endpoint. It makes no request: the container is probed (and created in
// provisioning mode ensure) by the first Check or Write.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	c, layout, err := b.build(ctx, cfg, creds)
	if err != nil {
		return nil, err
	}
	return objectstore.NewSink(c, layout, "azure blob container "+c.name, nil), nil
}

// build returns the container and layout of cfg.
func (b Backend) build(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (*blobContainer, objectstore.Layout, error) {
	var layout objectstore.Layout
	spec, err := decodeSpec(cfg)
	if err != nil {
		return nil, layout, err
	}
	ep, err := parseEndpoint(spec.Endpoint)
	if err != nil {
		return nil, layout, err
	}
	if layout, err = objectstore.NewLayout(&spec, ep.prefix); err != nil {
		return nil, layout, err
	}
	cred, err := resolveCredential(ctx, &spec, cfg.Namespace, ep, creds)
	if err != nil {
		return nil, layout, err
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
	if err != nil {
		return nil, layout, err
	}
	client, err := newClient(ep, cred, b.clientOptions(tlsCfg))
	if err != nil {
		return nil, layout, err
	}
	c := &blobContainer{client: client, name: ep.account + "/" + ep.container, mode: v1alpha1.ProvisionEnsure}
	if spec.Provisioning != nil && spec.Provisioning.Mode != "" {
		c.mode = spec.Provisioning.Mode
	}
	return c, layout, nil
}

// decodeSpec decodes the snapshot sink spec of cfg strictly, checks its
// type and validates it (backend.DecodeSpec).
func decodeSpec(cfg busv1.SinkConfig) (v1alpha1.KollectSnapshotSinkSpec, error) {
	return backend.DecodeSpec[v1alpha1.KollectSnapshotSinkSpec](cfg, string(v1alpha1.SnapshotAzureBlob))
}

// clientOptions sends every request to the endpoint through the egress
// policy's client with spec.tls, and keeps the SDK's retries (3, from
// 800ms) for what a retry can fix.
func (b Backend) clientOptions(tlsCfg *tls.Config) *container.ClientOptions {
	return &container.ClientOptions{ClientOptions: azcore.ClientOptions{
		Transport: b.Egress.HTTPClient(tlsCfg),
		Retry:     policy.RetryOptions{ShouldRetry: shouldRetry},
	}}
}

// retryStatuses are the answers the SDK retries by default.
var retryStatuses = []int{http.StatusRequestTimeout, http.StatusTooManyRequests, http.StatusInternalServerError,
	http.StatusBadGateway, http.StatusServiceUnavailable, http.StatusGatewayTimeout}

// shouldRetry is the SDK's default rule, except that errors already known
// to be permanent (the egress policy's refusals) are not retried.
func shouldRetry(resp *http.Response, err error) bool {
	if err != nil {
		return !sink.IsPermanent(err) && !errors.Is(err, egress.ErrDenied)
	}
	return slices.Contains(retryStatuses, resp.StatusCode)
}

// newClient returns the container client of ep authorised by cred.
func newClient(ep endpoint, cred credential, opts *container.ClientOptions) (*container.Client, error) {
	var (
		c   *container.Client
		err error
	)
	switch {
	case cred.sharedKey != nil:
		c, err = container.NewClientWithSharedKeyCredential(ep.containerURL(), cred.sharedKey, opts)
	case cred.sas != "":
		c, err = container.NewClientWithNoCredential(ep.containerURL()+"?"+cred.sas, opts)
	default:
		c, err = container.NewClient(ep.containerURL(), cred.identity, opts)
	}
	if err != nil {
		// The URL may hold the SAS token: the message names the container only.
		return nil, sink.Permanent(fmt.Errorf("create azure blob client for container %s/%s: %w", ep.account, ep.container, redact(err)))
	}
	return c, nil
}
