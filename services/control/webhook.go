package control

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	"golang.org/x/time/rate"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"kollect.dev/kollect/pkg/egress"
	"kollect.dev/kollect/pkg/extract"
	"kollect.dev/kollect/services/control/internal/admission"
	"kollect.dev/kollect/services/control/internal/reconcile"
	"kollect.dev/kollect/services/control/internal/requester"
)

// WebhookConfig configures the validating admission webhook.
type WebhookConfig struct {
	// Port serves the webhook over HTTPS; zero or less disables it.
	Port int
	// Host is the address the webhook listens on; empty means all.
	Host string
	// CertDir holds tls.crt and tls.key provided by cert-manager; empty
	// means control manages its own certificate.
	CertDir string
	// Namespace and Secret hold the self-managed certificate, shared by
	// every replica.
	Namespace, Secret string
	// ConfigName is the ValidatingWebhookConfiguration whose caBundle the
	// self-managed CA is injected into.
	ConfigName string
	// Hosts are the names and addresses the self-managed certificate is
	// valid for (the webhook Service's DNS names).
	Hosts []string
	// ClientCAFile is a PEM bundle of the CA that signs the API server's
	// client certificate (--admission-control-config-file); when set the
	// webhook refuses, at the TLS handshake, every caller without a
	// certificate it signed. Empty admits any caller (the chart's
	// NetworkPolicy is then the only limit on who reaches the port).
	ClientCAFile string
	// ReviewRate and ReviewBurst size the token bucket of each caller
	// (the requesting user when the API server's certificate vouches for
	// it, the remote address otherwise); a caller over it is answered 429
	// before any access review. A rate of zero or less disables the limit.
	ReviewRate  float64
	ReviewBurst int
}

func defaultWebhookConfig() WebhookConfig {
	ns := os.Getenv("POD_NAMESPACE")
	if ns == "" {
		ns = reconcile.DefaultSinkNamespace
	}
	return WebhookConfig{ //nolint:gosec // G101: the certificate Secret's name, not a credential
		Port: 9443, Namespace: ns, Secret: "kollect-control-webhook-cert", ConfigName: "kollect-control",
		Hosts:      []string{"kollect-control-webhook." + ns + ".svc", "kollect-control-webhook." + ns + ".svc.cluster.local"},
		ReviewRate: 100, ReviewBurst: 500,
	}
}

func (w *WebhookConfig) bindFlags(fs *flag.FlagSet) {
	fs.IntVar(&w.Port, "webhook-port", w.Port, "Validating webhook HTTPS port (0 disables).")
	fs.StringVar(&w.CertDir, "webhook-cert-dir", w.CertDir, "Folder with cert-manager's tls.crt and tls.key (empty: self-managed).")
	fs.StringVar(&w.Namespace, "webhook-secret-namespace", w.Namespace, "Namespace of the self-managed certificate Secret.")
	fs.StringVar(&w.Secret, "webhook-secret", w.Secret, "Secret holding the self-managed certificate.")
	fs.StringVar(&w.ConfigName, "webhook-config-name", w.ConfigName, "ValidatingWebhookConfiguration to inject the CA into.")
	fs.StringVar(&w.ClientCAFile, "webhook-client-ca-file", w.ClientCAFile,
		"PEM CA bundle that signs the API server's client certificate; callers without one are refused (empty: any caller).")
	fs.Float64Var(&w.ReviewRate, "webhook-review-rate", w.ReviewRate, "Admission reviews per second allowed to each caller (0 disables the limit).")
	fs.IntVar(&w.ReviewBurst, "webhook-review-burst", w.ReviewBurst, "Admission reviews a caller may send at once.")
	fs.Func("webhook-hosts", "Comma-separated names of the self-managed certificate.", func(s string) error {
		w.Hosts = strings.Split(s, ",")
		return nil
	})
}

// certificate returns the folder holding the serving certificate and, when
// control manages it, the CA bundle to inject.
func (w WebhookConfig) certificate(ctx context.Context, kube *rest.Config) (string, []byte, error) {
	if w.Port <= 0 || w.CertDir != "" {
		return w.CertDir, nil, nil
	}
	c, err := client.New(kube, client.Options{Scheme: scheme()})
	if err != nil {
		return "", nil, fmt.Errorf("create client: %w", err)
	}
	dir, err := os.MkdirTemp("", "kollect-control-webhook-")
	if err != nil {
		return "", nil, fmt.Errorf("make webhook certificate folder: %w", err)
	}
	ca, err := admission.EnsureCertificate(ctx, c, w.Namespace, w.Secret, dir, w.Hosts)
	return dir, ca, err
}

// register serves the validator and injects the self-managed CA. opts are
// control's Profile compilation options, the same as the collector's, so that
// admission refuses exactly what the collector would.
func (w WebhookConfig) register(ctx context.Context, mgr manager.Manager, kube *rest.Config, deps *reconcile.Deps, sealer *requester.Sealer,
	certDir string, ca []byte, p egress.Policy, opts extract.Options) error {
	if w.Port <= 0 {
		return nil
	}
	cs, err := kubernetes.NewForConfig(kube)
	if err != nil {
		return fmt.Errorf("create clientset: %w", err)
	}
	v := &admission.Validator{Reader: mgr.GetClient(), Scopes: deps, Mapper: mgr.GetRESTMapper(), Kube: cs,
		Egress: p, Extract: opts,
		AllowCrossNamespaceSecretRefs: deps.Policy.AllowCrossNamespaceSecretRefs, MinExportInterval: deps.Policy.MinExportInterval,
		Quotas: deps.Policy.Quotas, DefaultServiceAccount: deps.Policy.DefaultServiceAccount}
	if w.ReviewRate > 0 {
		v.Limiter = &admission.Limiter{Rate: rate.Limit(w.ReviewRate), Burst: max(w.ReviewBurst, 1), Max: maxReviewCallers}
	}
	mgr.GetWebhookServer().Register(admission.Path, &webhook.Admission{Handler: v, WithContextFunc: admission.WithCaller})
	mgr.GetWebhookServer().Register(admission.StampPath, &webhook.Admission{Handler: &admission.Stamper{
		Sealer: sealer, DefaultServiceAccount: deps.Policy.DefaultServiceAccount}})
	if ca == nil || w.ConfigName == "" {
		return nil
	}
	c, err := client.New(kube, client.Options{Scheme: scheme()})
	if err != nil {
		return fmt.Errorf("create client: %w", err)
	}
	if err := admission.InjectCABundle(ctx, c, w.ConfigName, ca); err != nil {
		return err
	}
	expiry := admission.NewExpiryGauge()
	if err := ctrlmetrics.Registry.Register(expiry); err != nil {
		// A control started again in the same process (tests, kollect-dev)
		// finds the gauge of the one before in the global registry.
		var dup prometheus.AlreadyRegisteredError
		if !errors.As(err, &dup) {
			return fmt.Errorf("register %s: %w", admission.ExpiryMetric, err)
		}
		expiry = dup.ExistingCollector.(prometheus.Gauge)
	}
	return mgr.Add(&admission.Keeper{Client: c, Namespace: w.Namespace, Secret: w.Secret, Dir: certDir,
		ConfigName: w.ConfigName, Hosts: w.Hosts, Every: time.Hour, Expiry: expiry, Log: mgr.GetLogger().WithName("webhook-cert"),
		Injected: ca})
}

// maxReviewCallers bounds the token buckets the webhook keeps.
const maxReviewCallers = 10000

// tlsOptions require the API server's client certificate when a client CA
// is configured.
func (w WebhookConfig) tlsOptions() ([]func(*tls.Config), error) {
	if w.ClientCAFile == "" {
		return nil, nil
	}
	pem, err := os.ReadFile(w.ClientCAFile)
	if err != nil {
		return nil, fmt.Errorf("read webhook client CA: %w", err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		return nil, fmt.Errorf("read webhook client CA %s: no PEM certificate", w.ClientCAFile)
	}
	return []func(*tls.Config){func(c *tls.Config) {
		c.ClientCAs, c.ClientAuth = pool, tls.RequireAndVerifyClientCert
	}}, nil
}

// sealer returns the requester sealer with control's key, which every
// replica shares through the Secret RequesterKey.
func (c Config) sealer(ctx context.Context, kube *rest.Config) (*requester.Sealer, error) {
	cl, err := client.New(kube, client.Options{Scheme: scheme()})
	if err != nil {
		return nil, fmt.Errorf("create client: %w", err)
	}
	key, err := requester.EnsureKey(ctx, cl, c.Webhook.Namespace, c.RequesterKey)
	if err != nil {
		return nil, err
	}
	return requester.NewSealer(key)
}
