package control_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/pkg/bus"
	"kollect.dev/kollect/pkg/testenv"
)

// BenchmarkRevocation measures, on the real API server, how long a revoked
// RoleBinding takes to reach a Target's config entry while control is busy
// reviewing every other Target: revTenants namespaces, each with
// revPerTenant Targets acting as the namespace's own ServiceAccount and
// selecting revShared shared namespaces where one RoleBinding per namespace
// grants every tenant's ServiceAccount. Two loads are measured:
//
//   - wave: a ClusterRoleBinding naming the group system:serviceaccounts
//     changes just before the revocation, so every Target is reviewed again
//     with a cold cache, at the revocation's own priority (the worst case);
//     s/wave is how long that full re-review takes.
//   - namespace: a namespace is created just before (every Target is
//     reviewed again behind the revocation, at low priority, like the
//     periodic re-check).
//
// Then two revocations that reach every Target, each timed until the last
// Target's entry has lost the namespace:
//
//   - group: a RoleBinding granting the group system:serviceaccounts in one
//     more shared namespace is deleted;
//   - role: a Role every tenant is bound to in another one loses its rule
//     (edited in place).
//
// Run it alone: go test ./services/control -run '^$' -bench Revocation -benchtime 1x
// The size: KOLLECT_REVOCATION_SIZE=200x5x200 (tenants, Targets
// per tenant, shared namespaces: 1,000 Targets × 200 namespaces).
func BenchmarkRevocation(b *testing.B) {
	revTenants, revPerTenant, revShared := revocationSize(b)
	ctx := b.Context()
	c := shared.kube.Client
	var tenants, sharedNS []string
	for i := range revTenants {
		ns := fmt.Sprintf("rev-tenant-%02d", i)
		tenants = append(tenants, ns)
		mustCreate(b, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	var subjects []rbacv1.Subject
	for _, ns := range tenants {
		subjects = append(subjects, rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: "kollect"})
	}
	if err := viewRole(); err != nil {
		b.Fatal(err)
	}
	for i := range revShared {
		ns := fmt.Sprintf("rev-shared-%02d", i)
		sharedNS = append(sharedNS, ns)
		mustCreate(b, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
		mustCreate(b, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: "tenants"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kollect-test-view"},
			Subjects: subjects})
	}
	// The namespaces of the group and role revocations.
	byGroup, byRole := "rev-by-group", "rev-by-role"
	mustCreate(b, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: byGroup}})
	mustCreate(b, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: byGroup, Name: "every-serviceaccount"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "kollect-test-view"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts"}}})
	mustCreate(b, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: byRole}})
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: byRole, Name: "cms"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"list"}}}}
	mustCreate(b, role)
	mustCreate(b, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: byRole, Name: "tenants"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: "cms"},
		Subjects: subjects})
	allShared := append(slices.Clone(sharedNS), byGroup, byRole)
	setup := time.Now()
	for _, ns := range tenants {
		mustCreate(b, profile(ns, "cms", configMaps))
		for i := range revPerTenant {
			tg := targetObj(ns, fmt.Sprintf("t%d", i), "cms")
			tg.Spec.IncludedNamespaces = allShared
			mustCreate(b, tg)
		}
	}
	victim := tenants[0]
	waitAccess(b, victim, "t0", func(a *busv1.TargetAccess) bool { return len(a.Namespaces) == len(allShared) })
	waitEveryAccess(b, tenants, revPerTenant, func(a *busv1.TargetAccess) bool { return len(a.Namespaces) == len(allShared) })
	b.ReportMetric(time.Since(setup).Seconds(), "s/first-review")
	settle(b)

	revoke := func(i int) time.Duration {
		var rb rbacv1.RoleBinding
		if err := c.Get(ctx, client.ObjectKey{Namespace: sharedNS[i], Name: "tenants"}, &rb); err != nil {
			b.Fatal(err)
		}
		rb.Subjects = slices.DeleteFunc(rb.Subjects, func(s rbacv1.Subject) bool { return s.Namespace == victim })
		start := time.Now()
		if err := c.Update(ctx, &rb); err != nil {
			b.Fatal(err)
		}
		waitAccess(b, victim, "t0", func(a *busv1.TargetAccess) bool { return !slices.Contains(a.Namespaces, sharedNS[i]) })
		return time.Since(start)
	}

	sars := reviews(b)
	// The wave: a binding of a role granting nothing Kollect reviews to
	// every ServiceAccount drops every answer and queues every Target.
	mustCreate(b, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "rev-nothing"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Verbs: []string{"get"}, Resources: []string{"nothing"}}}})
	start := time.Now()
	mustCreate(b, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "rev-all-serviceaccounts"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "rev-nothing"},
		Subjects: []rbacv1.Subject{{Kind: rbacv1.GroupKind, APIGroup: rbacv1.GroupName, Name: "system:serviceaccounts"}}})
	wave := revoke(0)
	settle(b)
	b.ReportMetric(wave.Seconds(), "s/revocation-in-wave")
	b.ReportMetric(time.Since(start).Seconds(), "s/wave")
	b.ReportMetric(reviews(b)-sars, "reviews/wave")

	mustCreate(b, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "rev-new"}})
	b.ReportMetric(revoke(1).Seconds(), "s/revocation-behind-namespace")
	settle(b)

	// Revocations that reach every Target.
	lacks := func(ns string) func(*busv1.TargetAccess) bool {
		return func(a *busv1.TargetAccess) bool { return !slices.Contains(a.Namespaces, ns) }
	}
	sars = reviews(b)
	start = time.Now()
	if err := c.Delete(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: byGroup, Name: "every-serviceaccount"}}); err != nil {
		b.Fatal(err)
	}
	waitEveryAccess(b, tenants, revPerTenant, lacks(byGroup))
	b.ReportMetric(time.Since(start).Seconds(), "s/group-revocation")
	settle(b)
	start = time.Now()
	if err := c.Get(ctx, client.ObjectKeyFromObject(role), role); err != nil {
		b.Fatal(err)
	}
	role.Rules[0].Verbs = []string{"get"}
	if err := c.Update(ctx, role); err != nil {
		b.Fatal(err)
	}
	waitEveryAccess(b, tenants, revPerTenant, lacks(byRole))
	b.ReportMetric(time.Since(start).Seconds(), "s/role-edit-revocation")
	settle(b)
	b.ReportMetric(reviews(b)-sars, "reviews/group+role")
	b.ReportMetric(float64(revTenants*revPerTenant), "targets")
	b.ReportMetric(float64(len(allShared)), "namespaces")
}

// settle waits up to 5 minutes for the Target controller to be idle
// before the next measure. A controller that is not idle by then (with
// reviews at 1,000 Targets x 200 namespaces, the periodic re-check alone
// needs more reviews than the limiter allows) is counted in "unsettled",
// and the next measure runs under that load.
func settle(b *testing.B) {
	b.Helper()
	err := testenv.Poll(b.Context(), 5*time.Minute, func() error {
		depth := targetMetric(b, "workqueue_depth", "name")
		active := targetMetric(b, "controller_runtime_active_workers", "controller")
		if depth != 0 || active != 0 {
			return fmt.Errorf("%v queued, %v running", depth, active)
		}
		return nil
	}, testenv.Every(100*time.Millisecond))
	if err != nil {
		b.Logf("the Target controller is not idle after 5 minutes: %v", err)
		unsettled++
		b.ReportMetric(float64(unsettled), "unsettled")
	}
}

// unsettled counts the phases settle gave up on.
var unsettled int

// revocationSize reads KOLLECT_REVOCATION_SIZE, <tenants>x<Targets per
// tenant>x<shared namespaces>; 20x5x40 without it.
func revocationSize(b *testing.B) (tenants, perTenant, shared int) {
	b.Helper()
	v := os.Getenv("KOLLECT_REVOCATION_SIZE")
	if v == "" {
		return 20, 5, 40
	}
	if _, err := fmt.Sscanf(v, "%dx%dx%d", &tenants, &perTenant, &shared); err != nil || tenants < 1 || perTenant < 1 || shared < 2 {
		b.Fatalf("KOLLECT_REVOCATION_SIZE=%q: want <tenants>x<per tenant>x<shared namespaces>, e.g. 200x5x200", v)
	}
	return tenants, perTenant, shared
}

// waitEveryAccess waits until the config entry of every Target t0..t<n-1>
// of each tenant satisfies ok.
func waitEveryAccess(b *testing.B, tenants []string, n int, ok func(*busv1.TargetAccess) bool) {
	b.Helper()
	pending := map[string]bool{}
	for _, ns := range tenants {
		for i := range n {
			pending[ns+"/"+fmt.Sprintf("t%d", i)] = true
		}
	}
	testenv.Eventually(b, 10*time.Minute, "every Target's access", func() error {
		for k := range pending {
			ns, name, _ := strings.Cut(k, "/")
			a, err := accessEntry(ns, name)
			if err != nil {
				return err
			}
			if a == nil || !ok(a) {
				return fmt.Errorf("%d Targets left, %s has %+v", len(pending), k, a)
			}
			delete(pending, k)
		}
		return nil
	}, testenv.Every(50*time.Millisecond))
}

func mustCreate(b *testing.B, obj client.Object) {
	b.Helper()
	if err := shared.kube.Client.Create(b.Context(), obj); err != nil {
		b.Fatalf("create %T %s: %v", obj, obj.GetName(), err)
	}
}

func waitAccess(b *testing.B, ns, name string, ok func(*busv1.TargetAccess) bool) {
	b.Helper()
	testenv.Eventually(b, 10*time.Minute, "access of "+ns+"/"+name, func() error {
		a, err := accessEntry(ns, name)
		if err != nil {
			return err
		}
		if a == nil || !ok(a) {
			return fmt.Errorf("access = %+v", a)
		}
		return nil
	}, testenv.Every(20*time.Millisecond))
}

// accessEntry is the access in Target ns/name's config entry.
func accessEntry(ns, name string) (*busv1.TargetAccess, error) {
	e, err := shared.kv.Get(context.Background(), bus.ConfigKey(ref(busv1.KindTarget, ns, name)))
	if err != nil {
		return nil, err
	}
	var cfg busv1.TargetConfig
	if err := json.Unmarshal(e.Value(), &cfg); err != nil {
		return nil, err
	}
	return cfg.Access, nil
}

// reviews is how many SubjectAccessReviews the API server has answered.
func reviews(b *testing.B) float64 {
	b.Helper()
	cs, err := kubernetes.NewForConfig(shared.kube.Config)
	if err != nil {
		b.Fatal(err)
	}
	raw, err := cs.RESTClient().Get().AbsPath("/metrics").DoRaw(b.Context())
	if err != nil {
		b.Fatal(err)
	}
	var n float64
	for _, l := range strings.Split(string(raw), "\n") {
		if !strings.HasPrefix(l, "apiserver_request_total{") || !strings.Contains(l, `resource="subjectaccessreviews"`) {
			continue
		}
		f := strings.Fields(l)
		v, err := strconv.ParseFloat(f[len(f)-1], 64)
		if err != nil {
			b.Fatal(err)
		}
		n += v
	}
	return n
}
