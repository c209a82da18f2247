package tenancy

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
)

// revokeYAML is a Target over team-a and team-b for PodTemplates, which
// team-b's admin first lets team-a's ServiceAccount list.
const revokeYAML = `
apiVersion: kollect.dev/v1alpha1
kind: KollectProfile
metadata: {name: templates, namespace: team-a}
spec:
  targetGVK: {version: v1, kind: PodTemplate}
  attributes: [{name: labels, path: $.metadata.labels, optional: true}]
---
apiVersion: kollect.dev/v1alpha1
kind: KollectTarget
metadata: {name: templates, namespace: team-a}
spec:
  profileRef: {name: templates}
  includedNamespaces: [team-a, team-b]
`

// revokeVectors are grants team-b withdraws (SECURITY-3 F7): each must
// stop team-a's collection in team-b well within the periodic access
// re-check (2 minutes), since control evaluates RBAC from its caches and
// watches roles and bindings.
func revokeVectors() []vector {
	return []vector{
		{"a grant team-b withdraws by editing its Role in place stops team-a's Target in team-b at once", roleEditedInPlace},
	}
}

// roleEditedInPlace: team-b's admin grants team-a's ServiceAccount list on
// PodTemplates with a Role, team-a's Target collects team-b's template,
// then the admin takes list out of the Role (the binding stays): the
// Target must drop team-b, with its rows, within refusalWait.
func roleEditedInPlace(t *testing.T) {
	admin := suite.admin
	role := &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "team-a-lists-templates"},
		Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"podtemplates"}, Verbs: []string{"get", "list", "watch"}}}}
	create(t, admin, role)
	create(t, admin, roleBinding(teamB, "team-a-lists-templates", "Role", role.Name, saSubject(teamA, tenantSA)))
	create(t, admin, &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Namespace: teamB, Name: "shared-template"},
		Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}})
	apply(t, asAlice(t), revokeYAML)
	hasTeamB := func() (bool, error) {
		rows, err := rowsOf(t.Context(), teamA, "templates")
		if err != nil {
			return false, err
		}
		for _, r := range rows {
			if r.Namespace == teamB {
				return true, nil
			}
		}
		return false, nil
	}
	testenv.Eventually(t, refusalWait, "the granted Target collects team-b's template", func() error {
		if ok, err := hasTeamB(); err != nil || !ok {
			return fmt.Errorf("no row of team-b yet (%v)", err)
		}
		return nil
	}, testenv.Every(200*time.Millisecond))

	err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		if err := admin.Get(t.Context(), client.ObjectKeyFromObject(role), role); err != nil {
			return err
		}
		role.Rules[0].Verbs = []string{"get"}
		return admin.Update(t.Context(), role)
	})
	if err != nil {
		t.Fatalf("take list out of team-b's Role: %v", err)
	}
	testenv.Eventually(t, refusalWait, "the Target drops team-b", func() error {
		if ok, err := hasTeamB(); err != nil || ok {
			return fmt.Errorf("rows of team-b remain (%v)", err)
		}
		conds, err := conditionsOf(t.Context(), "KollectTarget", teamA, "templates")
		if err != nil {
			return err
		}
		if c := meta.FindStatusCondition(conds, v1alpha1.ConditionDegraded); c == nil || c.Reason != v1alpha1.ReasonAccessDenied {
			return fmt.Errorf("conditions: %s", describe(conds))
		}
		return nil
	}, testenv.Every(200*time.Millisecond))
}
