package tenancy

import (
	"bytes"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
)

// webhookVectors post forged AdmissionReviews to control's webhook
// directly, as a pod that reaches its port would (F8). The suite's webhook
// has no client CA: with one, such a caller is refused at the handshake
// (services/control TestOnlyTheAPIServerTalksToTheWebhook).
func webhookVectors() []vector {
	return []vector{
		{"a forged review listing 5,000 namespaces as system:masters is refused before any access review", func(t *testing.T) {
			ns := make([]string, 5000)
			for i := range ns {
				ns[i] = fmt.Sprintf("probe-%d", i)
			}
			obj := map[string]any{"apiVersion": "kollect.dev/v1alpha1", "kind": "KollectTarget",
				"metadata": map[string]any{"namespace": "team-a", "name": "forged"},
				"spec":     map[string]any{"profileRef": map[string]any{"name": "secret-data"}, "includedNamespaces": ns}}
			raw, err := json.Marshal(obj)
			if err != nil {
				t.Fatal(err)
			}
			review := admissionv1.AdmissionReview{TypeMeta: metav1.TypeMeta{APIVersion: "admission.k8s.io/v1", Kind: "AdmissionReview"},
				Request: &admissionv1.AdmissionRequest{UID: types.UID("forged"), Namespace: "team-a", Name: "forged",
					Kind:      metav1.GroupVersionKind{Group: "kollect.dev", Version: "v1alpha1", Kind: "KollectTarget"},
					Resource:  metav1.GroupVersionResource{Group: "kollect.dev", Version: "v1alpha1", Resource: "kollecttargets"},
					Operation: admissionv1.Create, Object: runtime.RawExtension{Raw: raw},
					UserInfo: authenticationv1.UserInfo{Username: "system:serviceaccount:ci:deployer", Groups: []string{"system:masters"}}}}
			body, err := json.Marshal(review)
			if err != nil {
				t.Fatal(err)
			}
			hc := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
			url := fmt.Sprintf("https://127.0.0.1:%d%s", suite.webhook.config.Port, webhookPath)
			resp, err := hc.Post(url, "application/json", bytes.NewReader(body))
			if err != nil {
				t.Fatal(err)
			}
			defer resp.Body.Close()
			var out admissionv1.AdmissionReview
			if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
				t.Fatal(err)
			}
			if out.Response == nil || out.Response.Allowed || out.Response.Result == nil ||
				!strings.Contains(out.Response.Result.Message, "more than the 256 allowed") {
				t.Errorf("forged review with 5,000 namespaces answered %+v, want refused for the cap", out.Response)
			}
		}},
	}
}
