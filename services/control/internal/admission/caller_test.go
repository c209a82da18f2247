package admission_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"sync/atomic"
	"testing"

	admissionv1 "k8s.io/api/admission/v1"
	authenticationv1 "k8s.io/api/authentication/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kubefake "k8s.io/client-go/kubernetes/fake"
	clienttesting "k8s.io/client-go/testing"
	"sigs.k8s.io/controller-runtime/pkg/client/fake"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	kadmission "kollect.dev/kollect/services/control/internal/admission"
)

type noScopes struct{}

func (noScopes) Honoured(context.Context, string) (*v1alpha1.KollectScope, error) { return nil, nil }
func (noScopes) HonouredCluster(context.Context) (*v1alpha1.KollectClusterScope, error) {
	return nil, nil
}

// validator returns a Validator over a Profile of ConfigMaps in team-a,
// whose SubjectAccessReviews are counted in sars and allowed only to
// system:masters.
func validator(sars *atomic.Int64, l *kadmission.Limiter) *kadmission.Validator {
	prof := &v1alpha1.KollectProfile{ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "cm"},
		Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}}}
	kube := kubefake.NewClientset()
	kube.PrependReactor("create", "subjectaccessreviews", func(a clienttesting.Action) (bool, runtime.Object, error) {
		sars.Add(1)
		sar := a.(clienttesting.CreateAction).GetObject().(*authorizationv1.SubjectAccessReview)
		sar.Status.Allowed = slices.Contains(sar.Spec.Groups, "system:masters")
		return true, sar, nil
	})
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, meta.RESTScopeNamespace)
	return &kadmission.Validator{Reader: fake.NewClientBuilder().WithScheme(testenv.Scheme()).WithObjects(prof).Build(),
		Scopes: noScopes{}, Mapper: m, Kube: kube, Limiter: l}
}

// targetReview is a forged AdmissionReview of a Target in team-a listing
// n namespaces, in the name of user with groups.
func targetReview(t *testing.T, user string, groups []string, n int) admission.Request {
	t.Helper()
	tg := v1alpha1.KollectTarget{TypeMeta: metav1.TypeMeta{APIVersion: "kollect.dev/v1alpha1", Kind: "KollectTarget"},
		ObjectMeta: metav1.ObjectMeta{Namespace: "team-a", Name: "probe"}}
	tg.Spec.ProfileRef.Name = "cm"
	for i := range n {
		tg.Spec.IncludedNamespaces = append(tg.Spec.IncludedNamespaces, fmt.Sprintf("ns-%d", i))
	}
	raw, err := json.Marshal(tg)
	if err != nil {
		t.Fatal(err)
	}
	return admission.Request{AdmissionRequest: admissionv1.AdmissionRequest{
		Kind: metav1.GroupVersionKind{Group: "kollect.dev", Version: "v1alpha1", Kind: "KollectTarget"}, Namespace: "team-a",
		Operation: admissionv1.Create, UserInfo: authenticationv1.UserInfo{Username: user, Groups: groups},
		Object: runtime.RawExtension{Raw: raw}}}
}

// from returns the context the webhook gives a request from addr.
func from(addr string) context.Context {
	r := httptest.NewRequest(http.MethodPost, kadmission.Path, nil)
	r.RemoteAddr = addr + ":40000"
	return kadmission.WithCaller(context.Background(), r)
}

func TestABodyWithThousandsOfNamespacesIsRefusedBeforeAnyReview(t *testing.T) {
	var sars atomic.Int64
	v := validator(&sars, nil)
	resp := v.Handle(from("10.0.0.1"), targetReview(t, "system:serviceaccount:ci:deployer", []string{"system:masters"}, 5000))
	if resp.Allowed || !strings.Contains(resp.Result.Message, "more than the 256 allowed") {
		t.Errorf("5,000 namespaces: allowed %v, %q; want refused for the cap", resp.Allowed, resp.Result.Message)
	}
	if n := sars.Load(); n != 0 {
		t.Errorf("5,000 namespaces issued %d SubjectAccessReviews, want none", n)
	}
}

func TestADenialForAnUnverifiedCallerNamesNoNamespace(t *testing.T) {
	var sars atomic.Int64
	v := validator(&sars, nil)
	resp := v.Handle(from("10.0.0.1"), targetReview(t, "system:serviceaccount:ci:deployer", nil, 3))
	if resp.Allowed {
		t.Fatal("allowed a Target whose namespaces the user may not list")
	}
	if strings.Contains(resp.Result.Message, "ns-") {
		t.Errorf("denial %q names the namespace whose review failed, for an identity the sender may not hold", resp.Result.Message)
	}
}

func TestAFloodFromOneCallerIsThrottledWhileAnotherIsAnswered(t *testing.T) {
	var sars atomic.Int64
	v := validator(&sars, &kadmission.Limiter{Rate: 0.001, Burst: 3, Max: 100})
	var throttled int
	for range 20 {
		resp := v.Handle(from("10.0.0.1"), targetReview(t, "mallory", nil, 1))
		if resp.Result != nil && resp.Result.Code == http.StatusTooManyRequests {
			throttled++
		}
	}
	if throttled != 17 {
		t.Errorf("a flood of 20 reviews with a burst of 3: %d throttled, want 17", throttled)
	}
	if n := sars.Load(); n != 3 {
		t.Errorf("the flood issued %d SubjectAccessReviews, want 3 (the burst)", n)
	}
	resp := v.Handle(from("10.0.0.2"), targetReview(t, "alice", nil, 1))
	if resp.Result != nil && resp.Result.Code == http.StatusTooManyRequests {
		t.Errorf("another caller was throttled by the flood: %q", resp.Result.Message)
	}
}
