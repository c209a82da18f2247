package control_test

import (
	"context"
	"fmt"
	"net"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control"
)

// labelWebhook marks the namespaces the test webhook configuration covers,
// so that tests of reconcile-time checks can still create what admission
// would refuse.
const labelWebhook = "kollect.dev/webhook-test"

// installWebhook registers a ValidatingWebhookConfiguration without a CA
// bundle pointing at a free loopback port; control generates its own
// certificate and injects the CA, as in a cluster without cert-manager.
func installWebhook(ctx context.Context, kube *testenv.Kube) (control.WebhookConfig, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return control.WebhookConfig{}, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	l.Close()
	url := fmt.Sprintf("https://127.0.0.1:%d/validate-kollect-dev", port)
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kollect-control-test"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.kollect.dev", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"kollect.dev"}, APIVersions: []string{"v1alpha1"}, Resources: []string{"*"}},
			}},
			NamespaceSelector:       &metav1.LabelSelector{MatchLabels: map[string]string{labelWebhook: "true"}},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := kube.Client.Create(ctx, vwc); err != nil {
		return control.WebhookConfig{}, err
	}
	// The mutating webhook that records requesters, of the same name (as
	// in the chart): control injects its CA into both.
	stamp := fmt.Sprintf("https://127.0.0.1:%d/mutate-kollect-dev", port)
	never := admissionregistrationv1.NeverReinvocationPolicy
	mwc := &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: vwc.Name},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{
			Name: "requester.kollect.dev", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &stamp},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule: admissionregistrationv1.Rule{APIGroups: []string{"kollect.dev"}, APIVersions: []string{"v1alpha1"},
					Resources: []string{"kollecttargets", "kollectsnapshotsinks", "kollectdatabasesinks", "kollecteventsinks"}},
			}},
			NamespaceSelector:       vwc.Webhooks[0].NamespaceSelector,
			FailurePolicy:           &fail,
			SideEffects:             &none,
			ReinvocationPolicy:      &never,
			AdmissionReviewVersions: []string{"v1"},
		}},
	}
	if err := kube.Client.Create(ctx, mwc); err != nil {
		return control.WebhookConfig{}, err
	}
	d := control.DefaultConfig().Webhook
	return control.WebhookConfig{Port: port, Host: "127.0.0.1", Namespace: "default", Secret: "kollect-control-webhook-cert",
		ConfigName: vwc.Name, Hosts: []string{"127.0.0.1"}, ReviewRate: d.ReviewRate, ReviewBurst: d.ReviewBurst}, nil
}
