package admission

import (
	"bytes"
	"context"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ExpiryMetric is the gauge of the self-managed serving certificate's
// NotAfter, in Unix seconds.
const ExpiryMetric = "kollect_webhook_certificate_expiry_timestamp_seconds"

// NewExpiryGauge returns the gauge of ExpiryMetric.
func NewExpiryGauge() prometheus.Gauge {
	return prometheus.NewGauge(prometheus.GaugeOpts{Name: ExpiryMetric,
		Help: "When the webhook's self-managed serving certificate expires (Unix seconds); control renews it with a third of its year left."})
}

// Keeper renews the self-managed certificate while control runs: every
// Every it reads the Secret (renewing it when due), rewrites the serving
// files when they changed (the webhook server reloads them) and injects a
// changed CA bundle. Every replica runs one, since every replica serves.
type Keeper struct {
	Client            client.Client
	Namespace, Secret string
	Dir               string
	ConfigName        string
	Hosts             []string
	Every             time.Duration
	Expiry            prometheus.Gauge
	Log               logr.Logger
	// Injected is the CA bundle already in the webhook configuration.
	Injected []byte
	now      func() time.Time
}

// NeedLeaderElection is false: every replica serves the webhook.
func (k *Keeper) NeedLeaderElection() bool { return false }

// Start checks at once, then every k.Every, until ctx ends. A failed check
// is logged and tried again at the next tick: the current certificate stays
// valid for months.
func (k *Keeper) Start(ctx context.Context) error {
	t := time.NewTicker(k.Every)
	defer t.Stop()
	for {
		if err := k.check(ctx); err != nil && ctx.Err() == nil {
			k.Log.Error(err, "cannot renew the webhook certificate; trying again later", "retryIn", k.Every.String())
		}
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
	}
}

func (k *Keeper) check(ctx context.Context) error {
	now := time.Now
	if k.now != nil {
		now = k.now
	}
	s, err := ensureSecret(ctx, k.Client, k.Namespace, k.Secret, k.Hosts, now())
	if err != nil {
		return err
	}
	if err := writeFiles(k.Dir, s.Data); err != nil {
		return err
	}
	if notAfter, err := leafExpiry(s.Data); err == nil && k.Expiry != nil {
		k.Expiry.Set(float64(notAfter.Unix()))
	}
	ca := s.Data[keyCA]
	if k.ConfigName == "" || bytes.Equal(ca, k.Injected) {
		return nil
	}
	if err := InjectCABundle(ctx, k.Client, k.ConfigName, ca); err != nil {
		return err
	}
	k.Injected = ca
	return nil
}
