package chart_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	authorizationv1 "k8s.io/api/authorization/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	queryv1 "kollect.dev/kollect/api/query/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// aggregated returns the union of the rules of the rendered ClusterRoles carrying the
// aggregation label rbac.authorization.k8s.io/aggregate-to-<role>: what Kubernetes'
// aggregation controller (which envtest does not run) adds to the ClusterRole role.
func aggregated(t *testing.T, objs []*unstructured.Unstructured, role string) []rbacv1.PolicyRule {
	t.Helper()
	var rules []rbacv1.PolicyRule
	for _, o := range objs {
		if o.GetKind() != "ClusterRole" || o.GetLabels()["rbac.authorization.k8s.io/aggregate-to-"+role] != "true" {
			continue
		}
		var cr rbacv1.ClusterRole
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(o.Object, &cr); err != nil {
			t.Fatalf("decode ClusterRole %s: %v", o.GetName(), err)
		}
		rules = append(rules, cr.Rules...)
	}
	return rules
}

// testHistoryRoles binds the chart's view and edit additions (aggregated by hand) and its
// history-reader ClusterRole to one user each in team-a, and asks the API server who may list
// an inventory's revisions (get on it) and who may read its rows (get on its data
// subresource too).
func testHistoryRoles(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := t.Context()
	objs := decode(t, render(t, valuesSets["full"]))
	roles := map[string][]rbacv1.PolicyRule{"view": aggregated(t, objs, "view"), "edit": aggregated(t, objs, "edit")}
	var reader rbacv1.ClusterRole
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(find(t, objs, "ClusterRole", releaseName+"-query-history-reader").Object, &reader); err != nil {
		t.Fatal(err)
	}
	roles["reader"] = reader.Rules
	for user, rules := range roles {
		name := "history-test-" + user
		if _, err := cs.RbacV1().ClusterRoles().Create(ctx, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: name}, Rules: rules}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		rb := &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "team-a"},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: name},
			Subjects: []rbacv1.Subject{{Kind: rbacv1.UserKind, Name: user}}}
		if _, err := cs.RbacV1().RoleBindings("team-a").Create(ctx, rb, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		user, sub string
		want      bool
	}{
		{"view", "", true},
		{"view", queryv1.InventoryDataSubresource, false},
		{"edit", "", true},
		{"edit", queryv1.InventoryDataSubresource, true},
		{"reader", "", true},
		{"reader", queryv1.InventoryDataSubresource, true},
	}
	for _, tt := range tests {
		what := "get kollectinventories"
		if tt.sub != "" {
			what += "/" + tt.sub
		}
		t.Run(fmt.Sprintf("%s may %s: %v", tt.user, what, tt.want), func(t *testing.T) {
			// The authorizer's RBAC cache follows the new roles asynchronously: wait for the
			// expected answer, then report the last one.
			err := testenv.Poll(ctx, 30*time.Second, func() error {
				got, err := userMay(ctx, cs, tt.user, tt.sub)
				if err != nil {
					return err
				}
				if got != tt.want {
					return fmt.Errorf("allowed = %v, want %v", got, tt.want)
				}
				return nil
			}, testenv.Every(100*time.Millisecond))
			if err != nil {
				t.Error(err)
			}
		})
	}
	// Dead letters: view and the history reader list them (the query service then asks
	// for get on each one's inventory, as for revisions).
	for _, user := range []string{"view", "reader"} {
		t.Run(user+" may list query.kollect.dev deadletters", func(t *testing.T) {
			err := testenv.Poll(ctx, 30*time.Second, func() error {
				r := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
					User: user, Groups: []string{"system:authenticated"},
					ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "list", Group: queryv1.Group,
						Resource: queryv1.ResourceDeadLetters, Namespace: "team-a"},
				}}
				out, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, r, metav1.CreateOptions{})
				if err != nil {
					return err
				}
				if !out.Status.Allowed {
					return fmt.Errorf("%s may not list deadletters in team-a", user)
				}
				return nil
			}, testenv.Every(100*time.Millisecond))
			if err != nil {
				t.Error(err)
			}
		})
	}
}

// userMay asks the API server whether user may get team-a's KollectInventory apps, or its
// subresource sub.
func userMay(ctx context.Context, cs kubernetes.Interface, user, sub string) (bool, error) {
	r := &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
		User: user, Groups: []string{"system:authenticated"},
		ResourceAttributes: &authorizationv1.ResourceAttributes{Verb: "get", Group: kollect, Resource: "kollectinventories",
			Subresource: sub, Namespace: "team-a", Name: "apps"},
	}}
	out, err := cs.AuthorizationV1().SubjectAccessReviews().Create(ctx, r, metav1.CreateOptions{})
	if err != nil {
		return false, err
	}
	return out.Status.Allowed, nil
}
