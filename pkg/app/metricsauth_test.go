package app_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/go-logr/logr"
	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"kollect.dev/kollect/pkg/app"
	"kollect.dev/kollect/pkg/testenv"
)

// token returns a fresh token of the ServiceAccount monitoring/name,
// creating it first.
func token(ctx context.Context, t *testing.T, cs kubernetes.Interface, name string) string {
	t.Helper()
	if _, err := cs.CoreV1().ServiceAccounts("monitoring").Create(ctx, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: name}},
		metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tr, err := cs.CoreV1().ServiceAccounts("monitoring").CreateToken(ctx, name, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	return tr.Status.Token
}

// scrape GETs path on addr over HTTPS (the self-signed certificate not
// verified, as Prometheus does with insecureSkipVerify) with token, and
// returns the status and body.
func scrape(ctx context.Context, addr, path, token string) (int, string, error) {
	c := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
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

func TestSecureMetricsNeedAKubernetesTokenAllowedToGetMetrics(t *testing.T) {
	k := testenv.StartKube(t)
	ctx := t.Context()
	cs, err := kubernetes.NewForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "monitoring"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	reader, stranger := token(ctx, t, cs, "prometheus"), token(ctx, t, cs, "stranger")
	// What the chart's metrics-reader ClusterRole grants, bound to prometheus only.
	if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		Rules: []rbacv1.PolicyRule{{NonResourceURLs: []string{"/metrics"}, Verbs: []string{"get"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "metrics-reader"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Namespace: "monitoring", Name: "prometheus"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	port, err := testenv.FreePort()
	if err != nil {
		t.Fatal(err)
	}
	o := app.DefaultMetricsOptions()
	o.BindAddress = fmt.Sprintf("127.0.0.1:%d", port)
	srv := o.Server(app.NewRegistry(), nil, logr.Discard())
	srv.Kube = k.Config
	runCtx, cancel := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() { done <- srv.Run(runCtx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("metrics server: %v", err)
		}
	})
	testenv.Eventually(t, 30*time.Second, "the probes answer over HTTPS without a token", func() error {
		code, body, err := scrape(ctx, o.BindAddress, "/readyz", "")
		if err != nil {
			return err
		}
		if code != http.StatusOK {
			return fmt.Errorf("GET /readyz: %d %s", code, body)
		}
		return nil
	})
	tests := []struct {
		name, token string
		want        int
	}{
		{"without a token, /metrics is unauthorized", "", http.StatusUnauthorized},
		{"with a token not allowed to get /metrics, it is forbidden", stranger, http.StatusForbidden},
		{"with a token bound to the metrics reader role, it is served", reader, http.StatusOK},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			// The API server's RBAC follows the new binding asynchronously.
			testenv.Eventually(t, 30*time.Second, fmt.Sprintf("GET /metrics answers %d", tt.want), func() error {
				code, body, err := scrape(ctx, o.BindAddress, "/metrics", tt.token)
				if err != nil {
					return err
				}
				if code != tt.want {
					return fmt.Errorf("GET /metrics: %d, want %d", code, tt.want)
				}
				if served := strings.Contains(body, "kollect_build_info"); served != (tt.want == http.StatusOK) {
					return fmt.Errorf("GET /metrics (%d) serves the metrics: %v", code, served)
				}
				return nil
			})
		})
	}
}
