package control_test

import (
	"maps"
	"testing"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	busv1 "kollect.dev/kollect/api/bus/v1"
	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/services/control"
	"kollect.dev/kollect/services/control/internal/requester"
)

// kollectOnlyRules are the rights of the review's T-kollect: kollect.dev
// objects and ConfigMaps in one namespace, no Secrets, no impersonation.
var kollectOnlyRules = []rbacv1.PolicyRule{
	{APIGroups: []string{"kollect.dev"}, Resources: []string{"*"}, Verbs: []string{"*"}},
	{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: []string{"get", "list", "watch"}},
}

// TestChoosingAServiceAccountNeedsTheRightToActAsIt: F6 of the third
// security review. A user who may only write kollect.dev objects cannot
// make a Target act as another ServiceAccount of the namespace, neither
// through the webhook nor around it (an object written without the webhook,
// or with a forged requester, is not acted on); a user who may impersonate
// the ServiceAccount can.
func TestChoosingAServiceAccountNeedsTheRightToActAsIt(t *testing.T) {
	ns := webhookNamespace(t)
	create(t, profile(ns, "cms", configMaps))
	grantView(t, ns, ns, "ci-deployer")
	team := userClient(t, ns, "kollect-only-"+ns, nil, kollectOnlyRules)
	borrowed := func(name string) *v1alpha1.KollectTarget {
		tg := targetObj(ns, name, "cms")
		tg.Spec.ServiceAccountName = "ci-deployer"
		return tg
	}
	t.Run("the webhook refuses a user who may not impersonate the ServiceAccount", func(t *testing.T) {
		refused(t, "denial", func() error { return team.Create(t.Context(), borrowed("borrow")) },
			"may not act as ServiceAccount "+ns+"/ci-deployer")
	})
	t.Run("a user who may impersonate it gets the Target admitted, recorded and collecting", func(t *testing.T) {
		owner := userClient(t, ns, "sa-owner-"+ns, nil, append([]rbacv1.PolicyRule{{APIGroups: []string{""},
			Resources: []string{"serviceaccounts"}, ResourceNames: []string{"ci-deployer"}, Verbs: []string{"impersonate"}}}, kollectOnlyRules...))
		eventually(t, "create as the owner", func() error { return owner.Create(t.Context(), borrowed("owned")) })
		accessOf(t, ns, "owned", busv1.TargetAccess{ServiceAccount: ns + "/ci-deployer", Namespaces: []string{ns}})
	})

	plain := namespace(t) // no webhook: the cluster without admission
	create(t, profile(plain, "cms", configMaps))
	grantView(t, plain, plain, "ci-deployer")
	t.Run("without the webhook, a Target naming a ServiceAccount has no verified requester and does not run", func(t *testing.T) {
		tg := targetObj(plain, "unverified", "cms")
		tg.Spec.ServiceAccountName = "ci-deployer"
		create(t, tg)
		condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonRequesterUnverified, "spec.serviceAccountName")
		eventually(t, "no config entry", func() error { return noEntry(t, ref(busv1.KindTarget, plain, "unverified")) })
	})
	t.Run("a requester record written by the user does not verify", func(t *testing.T) {
		tg := targetObj(plain, "forged", "cms")
		tg.Spec.ServiceAccountName = "ci-deployer"
		tg.Annotations = map[string]string{v1alpha1.AnnotationRequester: `{"user":"admin","groups":["system:masters"]}`,
			v1alpha1.AnnotationRequesterSeal: "AAAA"}
		create(t, tg)
		condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonRequesterUnverified, "spec.serviceAccountName")
	})
	t.Run("a Target naming no ServiceAccount still runs as the default one", func(t *testing.T) {
		create(t, targetObj(plain, "default", "cms"))
		accessOf(t, plain, "default", busv1.TargetAccess{ServiceAccount: plain + "/kollect", Namespaces: []string{plain}})
	})
}

// TestChoosingASecretNeedsTheRightToReadIt: a sink's secretRef is honoured
// only for a requester who may get that Secret; a user who may only write
// kollect.dev objects cannot send a Secret of the namespace to an endpoint
// of their choice, with or without the webhook.
func TestChoosingASecretNeedsTheRightToReadIt(t *testing.T) {
	ns := webhookNamespace(t)
	team := userClient(t, ns, "kollect-only-"+ns, nil, kollectOnlyRules)
	exfil := func(ns, name string) *v1alpha1.KollectSnapshotSink {
		s := gitSink(ns, name)
		s.Spec.SecretRef = &v1alpha1.SecretReference{Name: "db-creds"}
		return s
	}
	t.Run("the webhook refuses a user who may not get the Secret", func(t *testing.T) {
		refused(t, "denial", func() error { return team.Create(t.Context(), exfil(ns, "exfil")) },
			"may not get Secret "+ns+"/db-creds")
	})
	t.Run("an administrator's sink is admitted and written", func(t *testing.T) {
		eventually(t, "create as admin", func() error { return shared.kube.Client.Create(t.Context(), exfil(ns, "admin")) })
		eventually(t, "config entry", func() error {
			var cfg busv1.SinkConfig
			return configEntry(t, ref(busv1.KindSnapshotSink, ns, "admin"), &cfg)
		})
	})
	t.Run("an update that leaves the spec but drops the record (a server-side apply) keeps it", func(t *testing.T) {
		var s v1alpha1.KollectSnapshotSink
		eventually(t, "drop the record", func() error {
			if err := shared.kube.Client.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "admin"}, &s); err != nil {
				return err
			}
			delete(s.Annotations, v1alpha1.AnnotationRequester)
			delete(s.Annotations, v1alpha1.AnnotationRequesterSeal)
			return shared.kube.Client.Update(t.Context(), &s)
		})
		if s.Annotations[v1alpha1.AnnotationRequester] == "" || s.Annotations[v1alpha1.AnnotationRequesterSeal] == "" {
			t.Fatalf("annotations after the update: %v", s.Annotations)
		}
	})
	t.Run("a user editing the administrator's sink becomes its requester and is refused", func(t *testing.T) {
		refused(t, "denial", func() error {
			var s v1alpha1.KollectSnapshotSink
			if err := team.Get(t.Context(), client.ObjectKey{Namespace: ns, Name: "admin"}, &s); err != nil {
				return err
			}
			s.Spec.Endpoint = "https://attacker.example/x.git"
			return team.Update(t.Context(), &s)
		}, "may not get Secret "+ns+"/db-creds")
	})
	plain := namespace(t)
	t.Run("without the webhook the sink has no verified requester: no entry, so no exporter reads the Secret", func(t *testing.T) {
		s := exfil(plain, "exfil")
		create(t, s)
		eventually(t, "RequesterUnverified", func() error {
			return hasCondition(t, s, func() []metav1.Condition { return s.Status.Conditions },
				v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonRequesterUnverified)
		})
		eventually(t, "no config entry", func() error { return noEntry(t, ref(busv1.KindSnapshotSink, plain, "exfil")) })
	})
}

// sealed records an administrator (system:masters) as obj's requester, as
// the webhook would have for an administrator's request: the tests that
// create Targets naming a ServiceAccount or sinks naming Secrets in
// namespaces without the webhook use it.
func sealed[T client.Object](t *testing.T, obj T) T {
	t.Helper()
	var key corev1.Secret
	if err := shared.kube.Client.Get(t.Context(), client.ObjectKey{Namespace: "default", Name: control.DefaultConfig().RequesterKey}, &key); err != nil {
		t.Fatalf("read the requester key: %v", err)
	}
	s, err := requester.NewSealer(key.Data["key"])
	if err != nil {
		t.Fatal(err)
	}
	// Seal the spec as stored, with the CRD's defaults, as the webhook sees
	// it: a dry run of the create or update returns it.
	stored := obj.DeepCopyObject().(client.Object) //nolint:forcetypeassert // the same type
	if obj.GetResourceVersion() == "" {
		err = shared.kube.Client.Create(t.Context(), stored, client.DryRunAll)
	} else {
		err = shared.kube.Client.Update(t.Context(), stored, client.DryRunAll)
	}
	if err != nil {
		t.Fatalf("dry run: %v", err)
	}
	_, o, _ := requester.Of(stored, control.DefaultServiceAccount)
	ann, err := s.Seal(o, requester.Record{User: "test-admin", Groups: []string{"system:masters"}})
	if err != nil {
		t.Fatal(err)
	}
	a := obj.GetAnnotations()
	if a == nil {
		a = map[string]string{}
	}
	maps.Copy(a, ann)
	obj.SetAnnotations(a)
	return obj
}

// TestATargetCreatedBeforeItsProfileIsHeldToItsRequestersReach: the
// webhook cannot review the requester's list right while the Profile is
// missing; control reviews the recorded requester once it arrives, so a
// user cannot reach another namespace through a ServiceAccount that may.
func TestATargetCreatedBeforeItsProfileIsHeldToItsRequestersReach(t *testing.T) {
	ns, other := webhookNamespace(t), namespace(t)
	grantView(t, other, ns, "kollect") // the ServiceAccount may read other; its user may not
	team := teamClient(t, ns)
	tg := targetObj(ns, "early", "later")
	tg.Spec.IncludedNamespaces = []string{ns, other}
	eventually(t, "create before the Profile", func() error { return team.Create(t.Context(), tg.DeepCopy()) })
	create(t, profile(ns, "later", configMaps))
	condition(t, tg, v1alpha1.ConditionReady, metav1.ConditionFalse, v1alpha1.ReasonRequesterDenied, "may not list configmaps in namespace "+other)
	eventually(t, "no config entry", func() error { return noEntry(t, ref(busv1.KindTarget, ns, "early")) })
}
