package tenancy

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"kollect.dev/kollect/api/v1alpha1"
	"kollect.dev/kollect/pkg/testenv"
	"kollect.dev/kollect/services/control"
)

const (
	// labelAdmission on a Kollect object sends it through the webhook;
	// objects without it model a cluster without the webhook.
	labelAdmission = "tenancy.kollect.dev/admission"
	// leaseNamespace holds control's Lease, which the suite holds.
	leaseNamespace = "default"
	// webhookPath is where control serves the validator.
	webhookPath = "/validate-kollect-dev"
)

// webhookSetup is the webhook registration shared by both phases.
type webhookSetup struct {
	config control.WebhookConfig
}

// admitted returns the labels that send an object through the webhook.
func admitted() map[string]string { return map[string]string{labelAdmission: "on"} }

// installWebhook registers a ValidatingWebhookConfiguration for labelled
// kollect.dev objects, pointing at a free loopback port without a CA bundle
// (control injects its own), and takes control's Lease for good so that the
// webhook-only control instance never leads.
func installWebhook(ctx context.Context, kube *testenv.Kube) (webhookSetup, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return webhookSetup{}, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close()
	url := fmt.Sprintf("https://127.0.0.1:%d%s", port, webhookPath)
	fail, none := admissionregistrationv1.Fail, admissionregistrationv1.SideEffectClassNone
	vwc := &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "kollect-tenancy"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{
			Name: "validate.kollect.dev", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &url},
			Rules: []admissionregistrationv1.RuleWithOperations{{
				Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create, admissionregistrationv1.Update},
				Rule:       admissionregistrationv1.Rule{APIGroups: []string{"kollect.dev"}, APIVersions: []string{"v1alpha1"}, Resources: []string{"*"}},
			}},
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: admitted()},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
		}},
	}
	if err := kube.Client.Create(ctx, vwc); err != nil {
		return webhookSetup{}, fmt.Errorf("create webhook configuration: %w", err)
	}
	// The mutating webhook that records requesters (F6), of the same name
	// as the chart has it: control injects its CA into both.
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
			ObjectSelector:          &metav1.LabelSelector{MatchLabels: admitted()},
			FailurePolicy:           &fail,
			SideEffects:             &none,
			ReinvocationPolicy:      &never,
			AdmissionReviewVersions: []string{"v1"},
			TimeoutSeconds:          ptr.To[int32](10),
		}},
	}
	if err := kube.Client.Create(ctx, mwc); err != nil {
		return webhookSetup{}, fmt.Errorf("create mutating webhook configuration: %w", err)
	}
	now := metav1.NewMicroTime(time.Now())
	lease := &coordinationv1.Lease{
		ObjectMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: control.LeaderElectionID},
		Spec: coordinationv1.LeaseSpec{HolderIdentity: ptr.To("tenancy-suite"), LeaseDurationSeconds: ptr.To[int32](24 * 3600),
			AcquireTime: &now, RenewTime: &now},
	}
	if err := kube.Client.Create(ctx, lease); err != nil {
		return webhookSetup{}, fmt.Errorf("hold control's Lease: %w", err)
	}
	return webhookSetup{config: control.WebhookConfig{Port: port, Host: "127.0.0.1", Namespace: leaseNamespace,
		Secret: "kollect-control-webhook-cert", ConfigName: vwc.Name, Hosts: []string{"127.0.0.1"}}}, nil
}

// waitWebhook waits until the webhook denies a labelled Profile whose CEL
// does not compile (a dry run: nothing is stored).
func waitWebhook(ctx context.Context) error {
	bad := &v1alpha1.KollectProfile{
		ObjectMeta: metav1.ObjectMeta{Namespace: leaseNamespace, Name: "webhook-probe", Labels: admitted()},
		Spec: v1alpha1.KollectProfileSpec{TargetGVK: v1alpha1.GroupVersionKind{Version: "v1", Kind: "ConfigMap"},
			Attributes: []v1alpha1.Attribute{{Name: "x", Path: "cel:object.metadata.name +"}}},
	}
	var last error
	for {
		err := suite.admin.Create(ctx, bad.DeepCopy(), client.DryRunAll)
		switch {
		case err != nil && strings.Contains(err.Error(), "denied the request"):
			return nil
		case err == nil:
			last = fmt.Errorf("a Profile whose CEL does not compile was admitted")
		default:
			last = err
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("not serving: %w (last: %v)", ctx.Err(), last)
		case <-time.After(200 * time.Millisecond):
		}
	}
}
