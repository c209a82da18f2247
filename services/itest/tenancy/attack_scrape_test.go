package tenancy

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv"
)

// victimLabel stands for what a service's /metrics shows of another
// tenant: a Profile metric's label value, an inventory or sink name.
var victimLabel = canary("METRIC-LABEL")

// scrapeVectors scrape a service's /metrics, served as every service
// serves it by default (app.MetricsOptions, issue 36 F15), without a token
// and with team-a's ServiceAccount token: both must be refused before any
// series is shown. (dev.Run serves metrics over plain HTTP on loopback
// only, so the server runs here beside it.)
func scrapeVectors() []vector {
	return []vector{
		{"a tenant's token or no token cannot read a service's metrics", func(t *testing.T) {
			reg := app.NewRegistry()
			g := prometheus.NewGaugeVec(prometheus.GaugeOpts{Name: "kollect_tenancy_victim", Help: "team-b's series"}, []string{"inventory"})
			g.WithLabelValues(victimLabel).Set(1)
			reg.MustRegister(g)
			port, err := testenv.FreePort()
			if err != nil {
				t.Fatal(err)
			}
			o := app.DefaultMetricsOptions()
			o.BindAddress = fmt.Sprintf("127.0.0.1:%d", port)
			srv := o.Server(reg, nil, suite.log.WithName("scrape-vector"))
			srv.Kube = suite.kube.Config
			ctx, cancel := context.WithCancel(t.Context())
			done := make(chan error, 1)
			go func() { done <- srv.Run(ctx) }()
			t.Cleanup(func() {
				cancel()
				if err := <-done; err != nil {
					t.Errorf("metrics server: %v", err)
				}
			})
			cs, err := kubernetes.NewForConfig(suite.kube.Config)
			if err != nil {
				t.Fatal(err)
			}
			tr, err := cs.CoreV1().ServiceAccounts(teamA).CreateToken(t.Context(), tenantSA, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			testenv.Eventually(t, refusalWait, "the metrics address answers", func() error {
				_, _, err := scrapeMetrics(t.Context(), o.BindAddress, "/readyz", "")
				return err
			})
			for _, tok := range []struct{ who, token string }{{"no token", ""}, {"team-a's ServiceAccount", tr.Status.Token}} {
				code, body, err := scrapeMetrics(t.Context(), o.BindAddress, "/metrics", tok.token)
				if err != nil {
					t.Fatalf("scrape with %s: %v", tok.who, err)
				}
				if code != http.StatusUnauthorized && code != http.StatusForbidden {
					t.Errorf("scrape with %s: status %d, want 401 or 403", tok.who, code)
				}
				if strings.Contains(body, victimLabel) {
					t.Errorf("scrape with %s shows team-b's label", tok.who)
				}
			}
		}},
	}
}

// scrapeMetrics GETs path on addr over HTTPS (the self-signed certificate
// not verified) with a bearer token when given.
func scrapeMetrics(ctx context.Context, addr, path, token string) (int, string, error) {
	c := &http.Client{Timeout: 10 * time.Second,
		Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+addr+path, nil)
	if err != nil {
		return 0, "", err
	}
	if token != "" {
		req.Header.Set("Authorization", "Bearer "+token)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b), err
}
