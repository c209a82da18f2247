//go:build e2ecluster

package e2e_test

import (
	"context"
	"crypto/tls"
	"fmt"
	"net/http"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/deploy/e2e"
)

// scraper is the ServiceAccount the test scrapes metrics as, bound to the chart's
// metrics-reader ClusterRole (release kollect): the path Prometheus takes.
const scraper = "e2e-metrics-scraper"

// scrapeGet GETs a pod's secured /metrics over HTTPS (the self-signed certificate not
// verified, as the ServiceMonitor's default tlsConfig) with the scraper's token.
func scrapeGet(t *testing.T, c *e2e.Cluster, url string) (*http.Response, error) {
	t.Helper()
	ctx := context.Background()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: scraper, Namespace: "default"}}
	if _, err := c.Client.CoreV1().ServiceAccounts("default").Create(ctx, sa, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	crb := &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: scraper},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kollect-metrics-reader"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.ServiceAccountKind, Name: scraper, Namespace: "default"}}}
	if _, err := c.Client.RbacV1().ClusterRoleBindings().Create(ctx, crb, metav1.CreateOptions{}); err != nil && !apierrors.IsAlreadyExists(err) {
		t.Fatal(err)
	}
	tr, err := c.Client.CoreV1().ServiceAccounts("default").CreateToken(ctx, scraper, &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Authorization", "Bearer "+tr.Status.Token)
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	resp, err := client.Do(req)
	if err == nil && resp.StatusCode != http.StatusOK {
		_ = resp.Body.Close()
		return nil, fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return resp, err
}
