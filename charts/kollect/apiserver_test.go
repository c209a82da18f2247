package chart_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/discovery"
	"k8s.io/client-go/discovery/cached/memory"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/restmapper"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"kollect.dev/kollect/pkg/testenv"
)

// applier applies objects with server-side apply through the dynamic client.
type applier struct {
	dyn    dynamic.Interface
	mapper *restmapper.DeferredDiscoveryRESTMapper
}

func newApplier(t *testing.T, k *testenv.Kube) *applier {
	t.Helper()
	dc, err := discovery.NewDiscoveryClientForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	dyn, err := dynamic.NewForConfig(k.Config)
	if err != nil {
		t.Fatal(err)
	}
	return &applier{dyn: dyn, mapper: restmapper.NewDeferredDiscoveryRESTMapper(memory.NewMemCacheClient(dc))}
}

// apply server-side applies o; dryRun asks the API server to validate and admit it without
// persisting it.
func (a *applier) apply(ctx context.Context, o *unstructured.Unstructured, dryRun bool) error {
	gvk := o.GroupVersionKind()
	m, err := a.mapper.RESTMapping(gvk.GroupKind(), gvk.Version)
	if err != nil {
		return fmt.Errorf("map %s: %w", gvk, err)
	}
	opts := metav1.ApplyOptions{FieldManager: "chart-test", Force: true}
	if dryRun {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	var r dynamic.ResourceInterface = a.dyn.Resource(m.Resource)
	if m.Scope.Name() == "namespace" {
		r = a.dyn.Resource(m.Resource).Namespace(o.GetNamespace())
	}
	_, err = r.Apply(ctx, o.GetName(), o, opts)
	return err
}

// stubCRD is a schemaless CRD standing in for prometheus-operator's and cert-manager's, which
// envtest does not have: the dry-run then checks our objects' shape up to their spec.
func stubCRD(group, kind, plural string) *apiextensionsv1.CustomResourceDefinition {
	preserve := true
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: plural + "." + group},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: group, Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: kind, Plural: plural, ListKind: kind + "List", Singular: ""},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object", XPreserveUnknownFields: &preserve}}}},
		},
	}
}

// startKube starts a real API server with Kollect's CRDs, the stub CRDs and the namespaces
// the renderings use.
func startKube(t *testing.T) *testenv.Kube {
	t.Helper()
	k := testenv.StartKube(t)
	ctx := t.Context()
	var crds []*apiextensionsv1.CustomResourceDefinition
	for _, c := range []struct{ group, kind, plural string }{
		{"monitoring.coreos.com", "ServiceMonitor", "servicemonitors"},
		{"monitoring.coreos.com", "PrometheusRule", "prometheusrules"},
		{"cert-manager.io", "Issuer", "issuers"},
		{"cert-manager.io", "Certificate", "certificates"},
	} {
		crds = append(crds, stubCRD(c.group, c.kind, c.plural))
	}
	if _, err := envtest.InstallCRDs(k.Config, envtest.CRDInstallOptions{CRDs: crds}); err != nil {
		t.Fatalf("install stub CRDs: %v", err)
	}
	for _, ns := range []string{namespace, "kfull-system", "team-a", "team-b"} {
		if err := k.Client.Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}); err != nil {
			t.Fatalf("create namespace %s: %v", ns, err)
		}
	}
	return k
}

func TestAPIServerAcceptsTheChart(t *testing.T) {
	k := startKube(t)
	a := newApplier(t, k)
	for _, name := range setNames() {
		t.Run("every object of the "+name+" values passes a server-side dry-run", func(t *testing.T) {
			for _, o := range decode(t, render(t, valuesSets[name])) {
				if err := a.apply(t.Context(), o, true); err != nil {
					t.Errorf("%s %s/%s refused: %v", o.GetKind(), o.GetNamespace(), o.GetName(), err)
				}
			}
		})
	}
	checkNotes(t, adminKubeconfig(t, k))
	t.Run("the CRD chart passes a server-side dry-run", func(t *testing.T) {
		for _, o := range decode(t, helm(t, "template", "kollect-crds", "../kollect-crds")) {
			if err := a.apply(t.Context(), o, true); err != nil {
				t.Errorf("%s %s refused: %v", o.GetKind(), o.GetName(), err)
			}
		}
	})
	t.Run("service accounts have least privilege", func(t *testing.T) {
		cs, err := kubernetes.NewForConfig(k.Config)
		if err != nil {
			t.Fatal(err)
		}
		testRBAC(t, cs, a)
	})
	t.Run("view lists an inventory's revisions, only edit and the history reader read its rows", func(t *testing.T) {
		cs, err := kubernetes.NewForConfig(k.Config)
		if err != nil {
			t.Fatal(err)
		}
		testHistoryRoles(t, cs)
	})
}

// access is one request a service account must be allowed or denied.
type access struct {
	sa, verb, group, resource, sub, ns, name string
	allowed                                  bool
}

func (x access) String() string {
	s := fmt.Sprintf("%s %s %s", x.sa, x.verb, x.resource)
	if x.sub != "" {
		s += "/" + x.sub
	}
	if x.name != "" {
		s += " " + x.name
	}
	if x.ns != "" {
		s += " in " + x.ns
	}
	return s
}

// sar asks the API server whether the service account sa of namespace ns may do x.
func sar(ctx context.Context, cs kubernetes.Interface, ns string, x access) (bool, error) {
	r := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User:   "system:serviceaccount:" + ns + ":" + x.sa,
		Groups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: x.verb, Group: x.group, Resource: x.resource,
			Subresource: x.sub, Namespace: x.ns, Name: x.name},
	}}
	out, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, r, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return out.Status.Allowed, nil
}

// checkAccess waits until every allowed request is allowed (RBAC caches converge), then
// requires every request's answer to match.
func checkAccess(t *testing.T, cs kubernetes.Interface, ns string, want []access) {
	t.Helper()
	pending := slices.DeleteFunc(slices.Clone(want), func(x access) bool { return !x.allowed })
	// Past the deadline the subtests below name what is still denied.
	_ = testenv.Poll(t.Context(), 30*time.Second, func() error {
		for ; len(pending) > 0; pending = pending[1:] {
			ok, err := sar(t.Context(), cs, ns, pending[0])
			if err != nil {
				t.Fatalf("SubjectAccessReview %s: %v", pending[0], err)
			}
			if !ok {
				return fmt.Errorf("%s is not allowed yet", pending[0])
			}
		}
		return nil
	}, testenv.Every(100*time.Millisecond))
	for _, x := range want {
		t.Run(fmt.Sprintf("%s is %s", x, map[bool]string{true: "allowed", false: "denied"}[x.allowed]), func(t *testing.T) {
			ok, err := sar(t.Context(), cs, ns, x)
			if err != nil {
				t.Fatalf("SubjectAccessReview: %v", err)
			}
			if ok != x.allowed {
				t.Errorf("allowed = %v, want %v", ok, x.allowed)
			}
		})
	}
}

// applyRBAC creates the ServiceAccounts, Roles, ClusterRoles and their bindings for real.
func applyRBAC(t *testing.T, a *applier, objs []*unstructured.Unstructured) {
	t.Helper()
	for _, o := range objs {
		switch o.GetKind() {
		case "ServiceAccount", "Role", "RoleBinding", "ClusterRole", "ClusterRoleBinding":
			if err := a.apply(t.Context(), o, false); err != nil {
				t.Fatalf("apply %s %s: %v", o.GetKind(), o.GetName(), err)
			}
		}
	}
}
