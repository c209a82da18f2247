package tenancy

import (
	"context"
	"encoding/json"
	"fmt"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/pkg/testenv"
)

const (
	teamA = "team-a"
	teamB = "team-b"
	// alice is team-a's user.
	alice = "alice"
	// bob is team-a's user who may only write kollect.dev objects (the
	// review's T-kollect): no Secrets, no pods, no impersonation.
	bob = "bob"
	// deployerSA is a ServiceAccount of team-a stronger than tenantSA: its
	// admin bound it to view in team-b.
	deployerSA = "deployer"
	// tenantSA is the ServiceAccount team-a's Targets act as (the
	// operator's default).
	tenantSA = "kollect"
	// lastApplied is the annotation kubectl apply writes.
	lastApplied = "kubectl.kubernetes.io/last-applied-configuration"
)

// tenants holds what setUpTenants made.
var tenants struct {
	once  sync.Once
	alice client.Client
	bob   client.Client
}

// asBob returns the client that acts as bob, after setting up both tenants
// once.
func asBob(t *testing.T) client.Client {
	t.Helper()
	asAlice(t)
	return tenants.bob
}

// asAlice returns the client that acts as team-a's user, after setting up
// both tenants once.
func asAlice(t *testing.T) client.Client {
	t.Helper()
	tenants.once.Do(func() { setUpTenants(t) })
	if tenants.alice == nil {
		t.Fatal("the tenants were not set up")
	}
	return tenants.alice
}

// setUpTenants makes team-a (alice: namespace admin, which a
// kollect-edit ClusterRole extends to kollect.dev objects, as a chart
// would) and team-b (the victim), as their admins would.
func setUpTenants(t *testing.T) {
	t.Helper()
	admin := suite.admin
	for _, ns := range []string{teamA, teamB} {
		create(t, admin, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}})
	}
	create(t, admin, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "kollect-edit", Labels: map[string]string{
		"rbac.authorization.k8s.io/aggregate-to-admin": "true", "rbac.authorization.k8s.io/aggregate-to-edit": "true"}},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"kollect.dev"}, Resources: []string{"*"}, Verbs: []string{"*"}}}})
	if err := aggregateClusterRoles(t.Context(), admin); err != nil {
		t.Fatal(err)
	}
	create(t, admin, roleBinding(teamA, "alice-admin", "ClusterRole", "admin", userSubject(alice)))
	cfg := rest.CopyConfig(suite.kube.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: alice, Groups: []string{"system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: suite.admin.Scheme()})
	if err != nil {
		t.Fatalf("impersonate %s: %v", alice, err)
	}
	// The RBAC authorizer reads roles through an informer: wait until
	// alice's grant is in effect.
	testenv.Eventually(t, 30*time.Second, "alice is team-a's admin", func() error {
		ssar := &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
			ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: teamA, Verb: "create", Resource: "serviceaccounts"}}}
		if err := c.Create(t.Context(), ssar); err != nil {
			return err
		}
		if !ssar.Status.Allowed {
			return fmt.Errorf("not allowed yet: %s", ssar.Status.Reason)
		}
		return nil
	}, testenv.Every(200*time.Millisecond))
	setUpVictim(t)
	setUpAttacker(t, c)
	tenants.alice = c
	tenants.bob = setUpKollectOnly(t)
}

// setUpKollectOnly makes bob, who may write kollect.dev objects in team-a
// and nothing else, and deployerSA, which team-b's admin lets read team-b.
func setUpKollectOnly(t *testing.T) client.Client {
	t.Helper()
	admin := suite.admin
	create(t, admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "kollect-only"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{"kollect.dev"}, Resources: []string{"*"}, Verbs: []string{"*"}}}})
	create(t, admin, roleBinding(teamA, "bob-kollect-only", "Role", "kollect-only", userSubject(bob)))
	create(t, admin, secretObj(teamA, "db-creds", map[string]string{"token": teamToken}))
	create(t, admin, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: deployerSA}})
	create(t, admin, roleBinding(teamB, "team-a-deployer-view", "ClusterRole", "view", saSubject(teamA, deployerSA)))
	cfg := rest.CopyConfig(suite.kube.Config)
	cfg.Impersonate = rest.ImpersonationConfig{UserName: bob, Groups: []string{"system:authenticated"}}
	c, err := client.New(cfg, client.Options{Scheme: suite.admin.Scheme()})
	if err != nil {
		t.Fatalf("impersonate %s: %v", bob, err)
	}
	return c
}

// setUpVictim fills team-b: the canary Secret and Deployment, and a
// ConfigMap team-b's admin lets team-a's ServiceAccount read.
func setUpVictim(t *testing.T) {
	t.Helper()
	admin := suite.admin
	data := map[string]string{
		"token": victimToken, "username": victimUser, "password": victimPassword,
		"dsn":         "postgres://" + victimDSNUser + ":" + victimDSNPassword + "@db.team-b.invalid:5432/payments",
		"accessKeyID": victimAccessKey, "secretAccessKey": victimSecretKey,
	}
	create(t, admin, secretObj(teamB, "canary", data))
	create(t, admin, deploymentObj(teamB, "payments", workloadSecrets{victimEnv, victimURL, victimAWS, victimArgs}))
	create(t, admin, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "public-settings"},
		Data: map[string]string{"color": "blue"}})
	create(t, admin, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "team-a-reads-configmaps"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}}}})
	create(t, admin, roleBinding(teamB, "team-a-reads-configmaps", "Role", "team-a-reads-configmaps", saSubject(teamA, tenantSA)))
}

// setUpAttacker fills team-a as alice: the ServiceAccount her Targets act
// as, with view and Secret reading in team-a (the normal grants), and
// team-a's own canary Deployment and Secret.
func setUpAttacker(t *testing.T, alice client.Client) {
	t.Helper()
	create(t, alice, &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: tenantSA}})
	create(t, alice, roleBinding(teamA, "kollect-view", "ClusterRole", "view", saSubject(teamA, tenantSA)))
	create(t, alice, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "kollect-secrets"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"secrets"}, Verbs: []string{"get", "list", "watch"}}}})
	create(t, alice, roleBinding(teamA, "kollect-secrets", "Role", "kollect-secrets", saSubject(teamA, tenantSA)))
	create(t, alice, deploymentObj(teamA, "app", workloadSecrets{ownEnv, ownURL, ownAWS, ownArgs}))
	create(t, alice, secretObj(teamA, "own-secret", map[string]string{"password": ownSecret}))
	create(t, alice, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: teamA, Name: "settings"},
		Data: map[string]string{"color": "green"}})
	apply(t, alice, targetProfiles)
}

// create creates obj with c, failing the test on error.
func create(t *testing.T, c client.Client, obj client.Object) {
	t.Helper()
	if err := c.Create(t.Context(), obj); err != nil {
		t.Fatalf("create %T %s/%s: %v", obj, obj.GetNamespace(), obj.GetName(), err)
	}
}

func roleBinding(ns, name, kind, role string, subject rbacv1.Subject) *rbacv1.RoleBinding {
	return &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: kind, Name: role},
		Subjects: []rbacv1.Subject{subject}}
}

func userSubject(name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.UserKind, APIGroup: rbacv1.GroupName, Name: name}
}

func saSubject(ns, name string) rbacv1.Subject {
	return rbacv1.Subject{Kind: rbacv1.ServiceAccountKind, Namespace: ns, Name: name}
}

// secretObj is a Secret with string data and the last-applied annotation
// kubectl apply would have written (which holds the same values).
func secretObj(ns, name string, data map[string]string) *corev1.Secret {
	applied, _ := json.Marshal(map[string]any{"apiVersion": "v1", "kind": "Secret",
		"metadata": map[string]any{"namespace": ns, "name": name}, "stringData": data})
	return &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name,
		Annotations: map[string]string{lastApplied: string(applied)}}, StringData: data}
}

// workloadSecrets are the canary values of a Deployment.
type workloadSecrets struct{ env, url, aws, args string }

// deploymentObj is a Deployment whose container env holds DB_PASSWORD,
// DATABASE_URL and AWS_SECRET_ACCESS_KEY (indexes 0 to 2; LOG_LEVEL is the
// harmless index 3), whose args start with --password=..., and whose
// last-applied annotation holds all of them.
func deploymentObj(ns, name string, s workloadSecrets) *appsv1.Deployment {
	env := []corev1.EnvVar{
		{Name: "DB_PASSWORD", Value: s.env},
		{Name: "DATABASE_URL", Value: "postgres://app:" + s.url + "@db/x"},
		{Name: "AWS_SECRET_ACCESS_KEY", Value: s.aws},
		{Name: "LOG_LEVEL", Value: "debug"},
	}
	labels := map[string]string{"app": name}
	c := corev1.Container{Name: "app", Image: "registry.example/" + name + ":1", Env: env,
		Args: []string{"--password=" + s.args, "--verbose"}}
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: appsv1.DeploymentSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{c}}},
		},
	}
	applied, _ := json.Marshal(map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
		"metadata": map[string]any{"namespace": ns, "name": name}, "spec": d.Spec})
	d.Annotations = map[string]string{lastApplied: string(applied)}
	return d
}

// aggregateClusterRoles does what kube-controller-manager's ClusterRole
// aggregation controller does, since envtest runs no controller manager:
// it fills each ClusterRole that has an aggregationRule (admin, edit,
// view) with the rules of the ClusterRoles its selectors match, to a fixed
// point (admin aggregates edit, which aggregates view).
func aggregateClusterRoles(ctx context.Context, c client.Client) error {
	var roles rbacv1.ClusterRoleList
	if err := c.List(ctx, &roles); err != nil {
		return fmt.Errorf("list ClusterRoles: %w", err)
	}
	for range 3 {
		for i := range roles.Items {
			r := &roles.Items[i]
			if r.AggregationRule == nil {
				continue
			}
			var rules []rbacv1.PolicyRule
			for _, ls := range r.AggregationRule.ClusterRoleSelectors {
				sel, err := metav1.LabelSelectorAsSelector(&ls)
				if err != nil {
					return fmt.Errorf("aggregation selector of ClusterRole %s: %w", r.Name, err)
				}
				for _, o := range roles.Items {
					if o.Name != r.Name && sel.Matches(labels.Set(o.Labels)) {
						rules = append(rules, o.Rules...)
					}
				}
			}
			r.Rules = rules
		}
	}
	for i := range roles.Items {
		if r := &roles.Items[i]; r.AggregationRule != nil {
			if err := c.Update(ctx, r); err != nil {
				return fmt.Errorf("aggregate ClusterRole %s: %w", r.Name, err)
			}
		}
	}
	return nil
}
