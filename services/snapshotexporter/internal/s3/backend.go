package s3

import (
	"context"
	"errors"
	"fmt"

	"github.com/aws/aws-sdk-go-v2/aws"
	"github.com/aws/aws-sdk-go-v2/aws/retry"
	"github.com/aws/aws-sdk-go-v2/config"
	"github.com/aws/aws-sdk-go-v2/credentials"
	"github.com/aws/aws-sdk-go-v2/service/s3"
	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/exporter/backend"
	"kollect.dev/kollect/pkg/sink"
	"kollect.dev/kollect/services/snapshotexporter/internal/objectstore"
)

// Secret keys read from spec.secretRef.
const (
	KeyAccessKeyID     = "accessKeyID"
	KeySecretAccessKey = "secretAccessKey"
	KeySessionToken    = "sessionToken"
	KeyRegion          = "region"
)

// Backend creates s3 snapshot sinks. It implements backend.Backend.
type Backend struct {
	// Egress is the address policy every connection to the endpoint obeys.
	Egress egress.Policy
}

// Type returns "s3".
func (Backend) Type() string { return string(v1alpha1.SnapshotS3) }

// New returns an objectstore.Sink writing to the bucket of cfg's endpoint.
// It makes no request: the bucket is probed (and created in provisioning
// mode ensure) by the first Check or Write.
func (b Backend) New(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (sink.Sink, error) {
	bk, layout, err := b.build(ctx, cfg, creds)
	if err != nil {
		return nil, err
	}
	return objectstore.NewSink(bk, layout, "s3 bucket "+bk.name, nil), nil
}

// build returns the bucket and layout of cfg.
func (b Backend) build(ctx context.Context, cfg busv1.SinkConfig, creds backend.Credentials) (*bucket, objectstore.Layout, error) {
	var layout objectstore.Layout
	spec, err := backend.DecodeSpec[v1alpha1.KollectSnapshotSinkSpec](cfg, string(v1alpha1.SnapshotS3))
	if err != nil {
		return nil, layout, err
	}
	ep, err := parseEndpoint(spec.Endpoint)
	if err != nil {
		return nil, layout, err
	}
	if layout, err = objectstore.NewLayout(&spec, ep.Prefix); err != nil {
		return nil, layout, err
	}
	secret, err := backend.SecretData(ctx, creds, cfg.Namespace, spec.SecretRef, KeyAccessKeyID, KeySecretAccessKey)
	if err != nil {
		return nil, layout, err
	}
	if secret == nil {
		// The default credential chain is the exporter's own identity.
		if err := backend.AmbientCredentials(creds, cfg.Namespace); err != nil {
			return nil, layout, err
		}
	}
	tlsCfg, err := egress.TLSConfig(ctx, spec.TLS, cfg.Namespace, creds)
	if err != nil {
		return nil, layout, err
	}
	opts, err := clientOptions(ctx, ep, secret)
	if err != nil {
		return nil, layout, err
	}
	opts.HTTPClient = b.Egress.HTTPClient(tlsCfg)
	bk := &bucket{client: s3.New(opts), name: ep.Bucket, region: opts.Region, mode: v1alpha1.ProvisionEnsure}
	if spec.Provisioning != nil && spec.Provisioning.Mode != "" {
		bk.mode = spec.Provisioning.Mode
	}
	return bk, layout, nil
}

// clientOptions resolves region and credentials; the default configuration
// is loaded only when the Secret and endpoint leave one of them open (its
// credentials only without a Secret, which the caller checked the sink may
// use).
func clientOptions(ctx context.Context, ep objectstore.Endpoint, secret map[string][]byte) (s3.Options, error) {
	opts := s3.Options{Retryer: retryer()}
	region := resolveRegion(ep.Param, string(secret[KeyRegion]), "")
	if secret == nil || (ep.Param == "" && len(secret[KeyRegion]) == 0) {
		def, err := config.LoadDefaultConfig(ctx)
		if err != nil {
			return opts, sink.Permanent(fmt.Errorf("load default AWS configuration: %w", err))
		}
		region = resolveRegion(ep.Param, string(secret[KeyRegion]), def.Region)
		opts.Credentials = def.Credentials
	}
	opts.Region = region
	if secret != nil {
		opts.Credentials = credentials.NewStaticCredentialsProvider(string(secret[KeyAccessKeyID]),
			string(secret[KeySecretAccessKey]), string(secret[KeySessionToken]))
	}
	if ep.URL != "" {
		opts.BaseEndpoint, opts.UsePathStyle = aws.String(ep.URL), true
	}
	return opts, nil
}

// retryer is the SDK's standard retryer, except that errors already known
// to be permanent (the egress policy's refusals) are not retried.
func retryer() aws.Retryer {
	return retry.NewStandard(func(o *retry.StandardOptions) {
		o.Retryables = append([]retry.IsErrorRetryable{retry.IsErrorRetryableFunc(func(err error) aws.Ternary {
			if sink.IsPermanent(err) || errors.Is(err, egress.ErrDenied) {
				return aws.FalseTernary
			}
			return aws.UnknownTernary
		})}, o.Retryables...)
	})
}
