package initsecrets

import (
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"slices"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/util/retry"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Config says which credentials to make; an empty name skips its step.
type Config struct {
	// Namespace of the Secrets.
	Namespace string
	// NATSUsersSecret is the Secret holding one password per NATS user,
	// keyed by user name.
	NATSUsersSecret string
	// NATSUsers are the users that must have a password.
	NATSUsers []string
	// ServingSecret is the kubernetes.io/tls Secret (tls.crt, tls.key,
	// ca.crt) of the query service's serving certificate.
	ServingSecret string
	// ServingHosts are the names the certificate must hold; empty only reads
	// ServingSecret (for APIService).
	ServingHosts []string
	// APIService is the APIService whose spec.caBundle is set to ca.crt of
	// ServingSecret.
	APIService string
	// Labels are set on the Secrets this creates.
	Labels map[string]string
}

// Run makes what c asks for, in order: the NATS users Secret, the serving
// certificate, the APIService's caBundle.
func Run(ctx context.Context, cl client.Client, c Config) error {
	if c.NATSUsersSecret != "" {
		if err := EnsureNATSUsers(ctx, cl, c.Namespace, c.NATSUsersSecret, c.NATSUsers, c.Labels); err != nil {
			return err
		}
	}
	if c.ServingSecret != "" && len(c.ServingHosts) > 0 {
		if err := EnsureServingCert(ctx, cl, c.Namespace, c.ServingSecret, c.ServingHosts, c.Labels); err != nil {
			return err
		}
	}
	if c.APIService != "" {
		if c.ServingSecret == "" {
			return fmt.Errorf("inject the caBundle of APIService %s: no serving Secret named", c.APIService)
		}
		return InjectAPIServiceCA(ctx, cl, c.APIService, c.Namespace, c.ServingSecret)
	}
	return nil
}

// EnsureNATSUsers creates the Secret ns/name with a random password for
// each user, or adds one for each user it lacks; it never changes a
// password it holds. A Secret a Helm release rendered (an older chart) gets
// Helm's keep policy, so that upgrading to this chart does not delete it.
func EnsureNATSUsers(ctx context.Context, cl client.Client, ns, name string, users []string, labels map[string]string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var s corev1.Secret
		err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s)
		if apierrors.IsNotFound(err) {
			s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
				Type: corev1.SecretTypeOpaque, Data: map[string][]byte{}}
			for _, u := range users {
				s.Data[u] = []byte(rand.Text())
			}
			err = cl.Create(ctx, &s)
			if apierrors.IsAlreadyExists(err) { // another run won: read and complete it
				return apierrors.NewConflict(corev1.Resource("secrets"), name, err)
			}
			if err != nil {
				return fmt.Errorf("create NATS users Secret %s/%s: %w", ns, name, err)
			}
			return nil
		}
		if err != nil {
			return fmt.Errorf("get NATS users Secret %s/%s: %w", ns, name, err)
		}
		missing := slices.DeleteFunc(slices.Clone(users), func(u string) bool { return len(s.Data[u]) > 0 })
		if len(missing) == 0 {
			return keep(ctx, cl, &s)
		}
		keepAnnotation(&s)
		if s.Data == nil {
			s.Data = map[string][]byte{}
		}
		for _, u := range missing {
			s.Data[u] = []byte(rand.Text())
		}
		if err := cl.Update(ctx, &s); err != nil {
			return fmt.Errorf("add NATS users %v to Secret %s/%s: %w", missing, ns, name, err)
		}
		return nil
	})
}

// EnsureServingCert creates the kubernetes.io/tls Secret ns/name with a new
// CA and a certificate for hosts, or replaces what it holds when that is not
// a certificate for exactly hosts, signed by its ca.crt, valid for more than
// renewWithin.
func EnsureServingCert(ctx context.Context, cl client.Client, ns, name string, hosts []string, labels map[string]string) error {
	return retry.RetryOnConflict(retry.DefaultRetry, func() error {
		var s corev1.Secret
		err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: name}, &s)
		create := apierrors.IsNotFound(err)
		if err != nil && !create {
			return fmt.Errorf("get serving certificate Secret %s/%s: %w", ns, name, err)
		}
		if !create && usable(s.Data, hosts) {
			return keep(ctx, cl, &s)
		}
		data, err := generate(hosts)
		if err != nil {
			return err
		}
		if create {
			s = corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, Labels: labels},
				Type: corev1.SecretTypeTLS, Data: data}
			err = cl.Create(ctx, &s)
			if apierrors.IsAlreadyExists(err) {
				return apierrors.NewConflict(corev1.Resource("secrets"), name, err)
			}
		} else {
			s.Data = data
			keepAnnotation(&s)
			err = cl.Update(ctx, &s)
		}
		if err != nil && !apierrors.IsConflict(err) {
			return fmt.Errorf("write serving certificate Secret %s/%s: %w", ns, name, err)
		}
		return err
	})
}

// InjectAPIServiceCA sets spec.caBundle of the APIService name to ca.crt
// of the Secret ns/secret, when it differs.
func InjectAPIServiceCA(ctx context.Context, cl client.Client, name, ns, secret string) error {
	var s corev1.Secret
	if err := cl.Get(ctx, client.ObjectKey{Namespace: ns, Name: secret}, &s); err != nil {
		return fmt.Errorf("get serving certificate Secret %s/%s: %w", ns, secret, err)
	}
	ca := s.Data[corev1.ServiceAccountRootCAKey]
	if len(ca) == 0 {
		return fmt.Errorf("serving certificate Secret %s/%s has no %s", ns, secret, corev1.ServiceAccountRootCAKey)
	}
	api := &unstructured.Unstructured{}
	api.SetAPIVersion("apiregistration.k8s.io/v1")
	api.SetKind("APIService")
	if err := cl.Get(ctx, client.ObjectKey{Name: name}, api); err != nil {
		return fmt.Errorf("get APIService %s: %w", name, err)
	}
	want := base64.StdEncoding.EncodeToString(ca)
	if got, _, _ := unstructured.NestedString(api.Object, "spec", "caBundle"); got == want {
		return nil
	}
	patch, err := json.Marshal(map[string]any{"spec": map[string]any{"caBundle": want}})
	if err != nil {
		return err
	}
	if err := cl.Patch(ctx, api, client.RawPatch(types.MergePatchType, patch)); err != nil {
		return fmt.Errorf("set the caBundle of APIService %s: %w", name, err)
	}
	return nil
}

// Annotations of a Secret an older chart rendered: Helm deletes it on the
// upgrade that no longer renders it, unless it carries the keep policy.
const (
	helmReleaseAnnotation = "meta.helm.sh/release-name"
	helmPolicyAnnotation  = "helm.sh/resource-policy"
)

// keepAnnotation marks s, when a Helm release owns it, with Helm's keep
// policy, and reports whether it changed s.
func keepAnnotation(s *corev1.Secret) bool {
	if s.Annotations[helmReleaseAnnotation] == "" || s.Annotations[helmPolicyAnnotation] == "keep" {
		return false
	}
	s.Annotations[helmPolicyAnnotation] = "keep"
	return true
}

// keep writes the keep policy on a Secret an older chart rendered, so that
// the upgrade to a chart that leaves it to this package does not delete it.
func keep(ctx context.Context, cl client.Client, s *corev1.Secret) error {
	if !keepAnnotation(s) {
		return nil
	}
	if err := cl.Update(ctx, s); err != nil {
		return fmt.Errorf("keep Secret %s/%s across the Helm upgrade: %w", s.Namespace, s.Name, err)
	}
	return nil
}
